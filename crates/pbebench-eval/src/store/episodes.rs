//! The interactive mode's part of the run store: every turn of an episode as it completes,
//! and the record of each episode once it ends.
//!
//! ```sql
//! turns(instance_id, sample, turn,           -- turn 0, 1, … of the episode
//!       assistant,                           -- the message the solver sent (JSON)
//!       results,                             -- the messages sent back (JSON array)
//!       reasoning_content, finish_reason, prompt_tokens, completion_tokens,
//!       reasoning_tokens, latency_ms, attempts, endpoint, completed_at,
//!       PRIMARY KEY (instance_id, sample, turn))
//! episodes(instance_id, sample, end_reason, final_source, final_cascade, probes,
//!          probes_used, tests, turns, prompt_tokens, completion_tokens,
//!          reasoning_tokens, completed_at, PRIMARY KEY (instance_id, sample))
//! ```
//!
//! The conversation of an episode is its request (the `requests` table) followed by the
//! `assistant` and `results` of each turn in order, so a resumed episode continues from
//! its last stored turn without asking for any stored turn again.

use super::{RunStore, StoreError, NOW};
use crate::sample::Usage;
use rusqlite::params;
use serde_json::Value;
use std::collections::HashMap;

/// The tables, created with the store.
pub(super) const TABLES: &str = "
    CREATE TABLE IF NOT EXISTS turns (
        instance_id       TEXT    NOT NULL,
        sample            INTEGER NOT NULL CHECK (sample >= 0),
        turn              INTEGER NOT NULL CHECK (turn >= 0),
        assistant         TEXT    NOT NULL,
        results           TEXT    NOT NULL,
        reasoning_content TEXT,
        finish_reason     TEXT,
        prompt_tokens     INTEGER,
        completion_tokens INTEGER,
        reasoning_tokens  INTEGER,
        latency_ms        REAL    NOT NULL,
        attempts          INTEGER NOT NULL,
        endpoint          TEXT,
        completed_at      TEXT    NOT NULL,
        PRIMARY KEY (instance_id, sample, turn)
    );
    CREATE TABLE IF NOT EXISTS episodes (
        instance_id       TEXT    NOT NULL,
        sample            INTEGER NOT NULL CHECK (sample >= 0),
        end_reason        TEXT    NOT NULL,
        final_source      TEXT    NOT NULL,
        final_cascade     TEXT    NOT NULL,
        probes            TEXT    NOT NULL,
        probes_used       INTEGER NOT NULL,
        tests             INTEGER NOT NULL,
        turns             INTEGER NOT NULL,
        prompt_tokens     INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        reasoning_tokens  INTEGER NOT NULL,
        completed_at      TEXT    NOT NULL,
        PRIMARY KEY (instance_id, sample)
    );";

/// One completed turn of an episode.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRow {
    /// The instance.
    pub instance_id: String,
    /// The sample (episode) index.
    pub sample: u32,
    /// 0-based turn number.
    pub turn: u32,
    /// The solver's message: an assistant message (`content`, `tool_calls`), or a line of
    /// a solver program.
    pub assistant: Value,
    /// The messages sent back: tool results, or the runner's line to a program.
    pub results: Vec<Value>,
    /// The model's reasoning text, kept for reading.
    pub reasoning_content: Option<String>,
    /// `finish_reason`.
    pub finish_reason: Option<String>,
    /// Tokens of this turn's request.
    pub usage: Usage,
    /// Wall time of the turn's last attempt, in milliseconds.
    pub latency_ms: f64,
    /// Attempts the turn's request took.
    pub attempts: u32,
    /// Endpoint of the last attempt (or the command).
    pub endpoint: Option<String>,
}

/// How an episode ended and what it produced; its figures are computed from this and the
/// dataset (so `--rescore` recomputes them).
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeRow {
    /// The instance.
    pub instance_id: String,
    /// The sample (episode) index.
    pub sample: u32,
    /// Why it ended (`submit`, `answer`, `turns`, `tokens`, `budget`, `exit`).
    pub end_reason: String,
    /// Where the final cascade came from (`submitted`, `tested`, `code_block`, `none`).
    pub final_source: String,
    /// The final cascade, as `[[pattern, replacement], …]`.
    pub final_cascade: Value,
    /// Every probe, in order: `[{"input", "output"}, …]`.
    pub probes: Value,
    /// Probe inputs used.
    pub probes_used: usize,
    /// Candidates tested.
    pub tests: usize,
    /// Turns taken.
    pub turns: u32,
    /// Tokens over all turns.
    pub usage: Usage,
}

pub(super) fn put_turns(
    tx: &rusqlite::Transaction<'_>,
    turns: &[&TurnRow],
) -> rusqlite::Result<()> {
    let mut put = tx.prepare_cached(&format!(
        "INSERT INTO turns (instance_id, sample, turn, assistant, results, reasoning_content,
             finish_reason, prompt_tokens, completion_tokens, reasoning_tokens, latency_ms,
             attempts, endpoint, completed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, {NOW})
         ON CONFLICT (instance_id, sample, turn) DO NOTHING"
    ))?;
    for t in turns {
        put.execute(params![
            t.instance_id,
            t.sample,
            t.turn,
            t.assistant.to_string(),
            Value::from(t.results.clone()).to_string(),
            t.reasoning_content,
            t.finish_reason,
            t.usage.prompt_tokens.map(|n| n as i64),
            t.usage.completion_tokens.map(|n| n as i64),
            t.usage.reasoning_tokens.map(|n| n as i64),
            t.latency_ms,
            t.attempts,
            t.endpoint,
        ])?;
    }
    Ok(())
}

pub(super) fn put_episodes(
    tx: &rusqlite::Transaction<'_>,
    episodes: &[&EpisodeRow],
) -> rusqlite::Result<()> {
    let mut put = tx.prepare_cached(&format!(
        "INSERT INTO episodes (instance_id, sample, end_reason, final_source, final_cascade,
             probes, probes_used, tests, turns, prompt_tokens, completion_tokens,
             reasoning_tokens, completed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, {NOW})
         ON CONFLICT (instance_id, sample) DO NOTHING"
    ))?;
    for e in episodes {
        put.execute(params![
            e.instance_id,
            e.sample,
            e.end_reason,
            e.final_source,
            e.final_cascade.to_string(),
            e.probes.to_string(),
            e.probes_used as i64,
            e.tests as i64,
            e.turns,
            e.usage.prompt_tokens.unwrap_or(0) as i64,
            e.usage.completion_tokens.unwrap_or(0) as i64,
            e.usage.reasoning_tokens.unwrap_or(0) as i64,
        ])?;
    }
    Ok(())
}

const TURN_COLUMNS: &str = "instance_id, sample, turn, assistant, results, reasoning_content,
    finish_reason, prompt_tokens, completion_tokens, reasoning_tokens, latency_ms, attempts,
    endpoint";

fn read_turn(r: &rusqlite::Row<'_>) -> rusqlite::Result<(TurnRow, String, String)> {
    Ok((
        TurnRow {
            instance_id: r.get(0)?,
            sample: r.get(1)?,
            turn: r.get(2)?,
            assistant: Value::Null,
            results: Vec::new(),
            reasoning_content: r.get(5)?,
            finish_reason: r.get(6)?,
            usage: super::usage_at(r, 7)?,
            latency_ms: r.get(10)?,
            attempts: r.get(11)?,
            endpoint: r.get(12)?,
        },
        r.get(3)?,
        r.get(4)?,
    ))
}

impl RunStore {
    fn query_turns(
        &self,
        filter: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<TurnRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {TURN_COLUMNS} FROM turns {filter} ORDER BY instance_id, sample, turn"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(args, read_turn).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (mut turn, assistant, results) = row.map_err(|e| self.err(e))?;
            turn.assistant = serde_json::from_str(&assistant).map_err(|e| {
                self.invalid(format!("turn {}: unreadable message: {e}", turn.turn))
            })?;
            turn.results = serde_json::from_str(&results).map_err(|e| {
                self.invalid(format!("turn {}: unreadable results: {e}", turn.turn))
            })?;
            out.push(turn);
        }
        Ok(out)
    }

    /// The stored turns of one episode, in order.
    pub fn turns(&self, instance_id: &str, sample: u32) -> Result<Vec<TurnRow>, StoreError> {
        self.query_turns(
            "WHERE instance_id = ?1 AND sample = ?2",
            params![instance_id, sample],
        )
    }

    /// The stored turns of every episode that holds no answer yet, by (instance, sample):
    /// where a continued run resumes them.
    pub fn unfinished_turns(&self) -> Result<HashMap<(String, u32), Vec<TurnRow>>, StoreError> {
        let turns = self.query_turns(
            &format!(
                "WHERE NOT EXISTS (SELECT 1 FROM samples s WHERE s.instance_id = turns.instance_id
                     AND s.sample = turns.sample AND s.status NOT IN ({}))",
                crate::sample::Status::sql_failures()
            ),
            [],
        )?;
        let mut by_episode: HashMap<(String, u32), Vec<TurnRow>> = HashMap::new();
        for t in turns {
            by_episode
                .entry((t.instance_id.clone(), t.sample))
                .or_default()
                .push(t);
        }
        Ok(by_episode)
    }

    /// True when any turn is stored.
    pub fn has_turns(&self) -> Result<bool, StoreError> {
        self.conn
            .query_row("SELECT EXISTS (SELECT 1 FROM turns)", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Forgets the stored turns of an unfinished episode, which then starts over (a
    /// solver program's episode: the program's state died with it).
    pub fn forget_turns(&self, instance_id: &str, sample: u32) -> Result<(), StoreError> {
        self.conn
            .execute(
                "DELETE FROM turns WHERE instance_id = ?1 AND sample = ?2",
                params![instance_id, sample],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Every episode record, ordered by instance id and sample.
    pub fn episodes(&self) -> Result<Vec<EpisodeRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT instance_id, sample, end_reason, final_source, final_cascade, probes,
                        probes_used, tests, turns, prompt_tokens, completion_tokens,
                        reasoning_tokens
                 FROM episodes ORDER BY instance_id, sample",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    EpisodeRow {
                        instance_id: r.get(0)?,
                        sample: r.get(1)?,
                        end_reason: r.get(2)?,
                        final_source: r.get(3)?,
                        final_cascade: Value::Null,
                        probes: Value::Null,
                        probes_used: r.get::<_, i64>(6)? as usize,
                        tests: r.get::<_, i64>(7)? as usize,
                        turns: r.get(8)?,
                        usage: Usage {
                            prompt_tokens: Some(r.get::<_, i64>(9)? as u64),
                            completion_tokens: Some(r.get::<_, i64>(10)? as u64),
                            reasoning_tokens: Some(r.get::<_, i64>(11)? as u64),
                        },
                    },
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (mut e, cascade, probes) = row.map_err(|e| self.err(e))?;
            let bad = |what: &str, err: serde_json::Error| {
                self.invalid(format!(
                    "episode {}/{}: unreadable {what}: {err}",
                    e.instance_id, e.sample
                ))
            };
            e.final_cascade = serde_json::from_str(&cascade).map_err(|x| bad("cascade", x))?;
            e.probes = serde_json::from_str(&probes).map_err(|x| bad("probes", x))?;
            out.push(e);
        }
        Ok(out)
    }
}
