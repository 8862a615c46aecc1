//! One sample: what a solver answered for one (instance, sample index), and how it went.

use std::fmt;
use std::str::FromStr;

/// How a sample ended. Every status but [`HttpError`], [`Timeout`] and [`Failed`] is an
/// answer, kept for good; those three are failures to answer, requested again when a run
/// is continued.
///
/// [`HttpError`]: Status::HttpError
/// [`Timeout`]: Status::Timeout
/// [`Failed`]: Status::Failed
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// A complete answer (`finish_reason` `stop`, or a solver program that exited 0).
    Ok,
    /// The answer hit the token limit (`finish_reason` `length`); its text, if any, is
    /// scored as it is.
    Truncated,
    /// The model or a filter declined (`finish_reason` `content_filter`, or `refusal`).
    Refused,
    /// No answer after every retry: an HTTP error status, a failed connection, or an
    /// HTTP 200 that holds no completion (malformed JSON, an error object, no choices, an
    /// empty message).
    HttpError,
    /// No answer within `--timeout` after every retry.
    Timeout,
    /// A completion that holds no answer text (empty content, only reasoning). Scored as
    /// an invalid response.
    Invalid,
    /// The solver program exited with an error status or was killed by a signal: no
    /// answer (an import error fails every instance alike), so a continued run runs it
    /// again. A program that gives up on an instance exits 0 and prints no answer.
    Failed,
}

impl Status {
    /// Every status, in the order summaries list them.
    pub const ALL: [Status; 7] = [
        Status::Ok,
        Status::Truncated,
        Status::Refused,
        Status::Invalid,
        Status::Failed,
        Status::HttpError,
        Status::Timeout,
    ];

    /// The name stored in the run store and printed in summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Truncated => "truncated",
            Status::Refused => "refused",
            Status::HttpError => "http_error",
            Status::Timeout => "timeout",
            Status::Invalid => "invalid",
            Status::Failed => "failed",
        }
    }

    /// True when the sample holds a solver's answer (even a bad one) and is never
    /// requested again; false for failures to answer, which a continued run retries.
    pub fn is_answer(self) -> bool {
        !matches!(self, Status::HttpError | Status::Timeout | Status::Failed)
    }

    /// The statuses that are not answers, as an SQL list: `'http_error', 'timeout', …`.
    pub(crate) fn sql_failures() -> String {
        Status::ALL
            .into_iter()
            .filter(|s| !s.is_answer())
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Status::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| format!("unknown sample status '{s}'"))
    }
}

/// Token counts as the endpoint reported them (`usage`); absent when it did not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// `usage.prompt_tokens`.
    pub prompt_tokens: Option<u64>,
    /// `usage.completion_tokens` (includes reasoning tokens, as OpenAI counts them).
    pub completion_tokens: Option<u64>,
    /// `usage.completion_tokens_details.reasoning_tokens`.
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// The cost in the currency of the prices, which are per million tokens.
    pub fn cost(&self, prices: Prices) -> f64 {
        (self.prompt_tokens.unwrap_or(0) as f64 * prices.input
            + self.completion_tokens.unwrap_or(0) as f64 * prices.output)
            / 1e6
    }
}

/// Prices per million tokens (`--price-in`, `--price-out`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prices {
    /// Per million prompt tokens.
    pub input: f64,
    /// Per million completion tokens (reasoning tokens included).
    pub output: f64,
}

/// The longest response a solver may give, in bytes (512 KiB): a solver program's
/// standard output in static mode, and each line it writes in interactive mode. The
/// longest real model answers (a cascade with the reasoning written around it) take tens
/// of kilobytes; past this size the sample fails with that reason, and the program is
/// stopped, so that a runaway program costs neither memory nor room in the run store.
pub const MAX_RESPONSE_BYTES: usize = 512 << 10;

/// One stored sample: the answer of one solver call for one (instance, sample index).
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The instance's id in the dataset.
    pub instance_id: String,
    /// 0-based sample index, `< --samples`.
    pub sample: u32,
    /// How it ended.
    pub status: Status,
    /// The answer text (`message.content`, or a solver program's stdout).
    pub content: Option<String>,
    /// The thinking text (`message.reasoning_content` or `message.reasoning`); stored,
    /// never parsed for the answer.
    pub reasoning_content: Option<String>,
    /// `finish_reason` as the endpoint gave it.
    pub finish_reason: Option<String>,
    /// Token counts.
    pub usage: Usage,
    /// Wall time of the last attempt, in milliseconds.
    pub latency_ms: f64,
    /// Wall time from the first attempt to the end, backoff included, in milliseconds.
    pub elapsed_ms: f64,
    /// Attempts made (1 when the first one answered).
    pub attempts: u32,
    /// The endpoint (base URL) or command that produced the last attempt.
    pub endpoint: Option<String>,
    /// The HTTP status of the last attempt, when there was one.
    pub http_status: Option<u16>,
    /// What went wrong, for every status but `ok`: the error, or the start of a body.
    pub error: Option<String>,
}

impl Sample {
    /// The text scored for this sample: the content of an answer, nothing otherwise.
    pub fn response_text(&self) -> &str {
        if self.status.is_answer() {
            self.content.as_deref().unwrap_or("")
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_round_trip() {
        for st in Status::ALL {
            assert_eq!(st.as_str().parse::<Status>().unwrap(), st);
        }
        assert_eq!(
            "fine".parse::<Status>(),
            Err("unknown sample status 'fine'".to_owned())
        );
        assert!(!Status::Timeout.is_answer() && Status::Invalid.is_answer());
        assert!(!Status::Failed.is_answer());
        assert_eq!(Status::sql_failures(), "'failed', 'http_error', 'timeout'");
    }

    #[test]
    fn cost_is_per_million_tokens() {
        let u = Usage {
            prompt_tokens: Some(2_000_000),
            completion_tokens: Some(500_000),
            reasoning_tokens: Some(400_000),
        };
        let c = u.cost(Prices {
            input: 1.0,
            output: 4.0,
        });
        assert!((c - 4.0).abs() < 1e-12);
    }
}
