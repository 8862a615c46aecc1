//! The backends: what answers instances (a model behind chat-completions endpoints, or a
//! solver program), how each builds the stored request of an instance and turns it into
//! a sample, and which of its parameters change answers.

use crate::client::{ChatClient, ChatParams};
use crate::control::Control;
use crate::episode::chat::ChatEpisodes;
use crate::episode::{InteractiveSpec, Outcome};
use crate::pricing::worst_cost;
use crate::sample::{Prices, Sample};
use crate::solver_cmd::{PublicInstance, SolverCommand};
use crate::store::TurnRow;
use crate::template::Template;
use crate::{ConfigError, EvalConfig, EvalError, Field, Problem, SolverSpec};
use pbebench::Instance;
use serde_json::{json, Value};

/// Something that answers instances: it builds the stored request of an instance and
/// turns a request into a sample.
#[allow(clippy::large_enum_variant)] // one per run
pub(crate) enum Backend {
    Chat {
        client: ChatClient,
        params: ChatParams,
        template: Template,
    },
    Command(SolverCommand),
}

impl Backend {
    /// The stored request of `instance`: the request body, or the program's stdin; in
    /// interactive mode the first request of an episode.
    pub(crate) fn request(
        &self,
        instance: &Instance,
        interactive: Option<InteractiveSpec>,
    ) -> String {
        if let Some(spec) = interactive {
            return match self {
                Backend::Chat { client, params, .. } => ChatEpisodes {
                    client,
                    params,
                    spec,
                }
                .first_request(instance),
                Backend::Command(_) => crate::episode::program::first_line(instance, &spec),
            };
        }
        match self {
            Backend::Chat {
                params, template, ..
            } => params.body(&template.render(instance)),
            Backend::Command(_) => PublicInstance::of(instance).to_json(),
        }
    }

    /// One sample; `Ok(None)` when the run stopped first; `Err` when the solver cannot
    /// run at all.
    pub(crate) fn sample(
        &self,
        request: &str,
        instance_id: &str,
        sample: u32,
        ctl: &Control,
    ) -> Result<Option<Sample>, String> {
        match self {
            Backend::Chat { client, .. } => Ok(client
                .sample(request, ctl)
                .map(|reply| reply.into_sample(instance_id, sample))),
            Backend::Command(cmd) => cmd
                .run(request, instance_id, sample)
                .map(Some)
                .map_err(|e| e.to_string()),
        }
    }

    /// Runs (or resumes after `stored`) one episode of interactive mode; `Err` when the
    /// solver cannot run at all.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn episode(
        &self,
        spec: InteractiveSpec,
        instance: &Instance,
        sample: u32,
        stored: &[TurnRow],
        ctl: &Control,
        prices: Prices,
        on_turn: &mut dyn FnMut(TurnRow),
    ) -> Result<Outcome, String> {
        match self {
            Backend::Chat { client, params, .. } => ChatEpisodes {
                client,
                params,
                spec,
            }
            .run(instance, sample, stored, ctl, prices, on_turn),
            Backend::Command(cmd) => {
                crate::episode::program::run(cmd, spec, instance, sample, on_turn)
            }
        }
    }

    /// The most a request with this body can cost at `prices`: its prompt at the input
    /// price plus its longest answer at the output price ([`worst_cost`]); nothing for a
    /// solver program.
    pub(crate) fn worst_cost(&self, request: &str, prices: Prices) -> f64 {
        match self {
            Backend::Chat { params, .. } => worst_cost(request, params.max_output_tokens(), prices),
            Backend::Command(_) => 0.0,
        }
    }

    /// The parameters that change answers, as stored in the manifest.
    pub(crate) fn answer_params(&self, interactive: Option<InteractiveSpec>) -> Value {
        let mut params = self.own_answer_params();
        if let Some(spec) = interactive {
            params["interactive"] = json!({
                "probe_budget": spec.probe_budget,
                "max_turns": spec.max_turns,
                "max_episode_tokens": spec.max_episode_tokens,
                "tool_protocol": spec.tool_protocol.to_string(),
            });
            // Only when not the default, so that runs made before the option resume.
            if spec.probe_len != pbebench::probe::DEFAULT_PROBE_LEN {
                params["interactive"]["max_probe_len"] = json!(spec.probe_len);
            }
            if spec.feedback {
                params["interactive"]["feedback"] = json!(true);
            }
            if let Value::Object(m) = &mut params {
                m.remove("prompt_template"); // the interactive prompt is built in
            }
        }
        params
    }

    fn own_answer_params(&self) -> Value {
        match self {
            Backend::Chat {
                params, template, ..
            } => json!({
                "solver": "chat",
                "model": params.model,
                "temperature": params.temperature,
                "top_p": params.top_p,
                "max_tokens": params.max_tokens,
                "reasoning_effort": params.reasoning_effort,
                "extra_body": params.extra_body,
                "prompt_template": template.describe(),
            }),
            Backend::Command(cmd) => json!({"solver": "command", "command": cmd.command}),
        }
    }

    /// The backend of a configuration, with the warnings of its preflight check (an
    /// unlisted model, a URL without `/v1`).
    pub(crate) fn build(config: &EvalConfig) -> Result<(Backend, Vec<String>), EvalError> {
        match &config.solver {
            SolverSpec::Chat(chat) => {
                let template =
                    Template::load(chat.template.as_deref()).map_err(|e| ConfigError {
                        field: Field::Template,
                        problem: Problem::Unusable(e.to_string()),
                    })?;
                let client = ChatClient::new(
                    &chat.base_urls,
                    chat.api_key.clone(),
                    chat.timeout,
                    chat.retry,
                    config.concurrency,
                )?;
                let warnings = client.preflight(&chat.params.model)?;
                Ok((
                    Backend::Chat {
                        client,
                        params: chat.params.clone(),
                        template,
                    },
                    warnings,
                ))
            }
            SolverSpec::Command(cmd) => Ok((Backend::Command(cmd.clone()), Vec::new())),
        }
    }
}
