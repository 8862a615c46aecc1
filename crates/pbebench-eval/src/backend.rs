//! The backends: what answers instances (a model behind chat-completions endpoints, or a
//! solver program), how each builds the stored request of an instance and turns it into
//! a sample, and which of its parameters change answers.

use crate::client::{ChatClient, ChatParams};
use crate::control::Control;
use crate::sample::Sample;
use crate::scoring::Template;
use crate::solver_cmd::{PublicInstance, SolverCommand};
use crate::{EvalConfig, EvalError, SolverSpec};
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
    pub(crate) fn request(&self, instance: &Instance) -> String {
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

    /// The parameters that change answers, as stored in the manifest.
    pub(crate) fn answer_params(&self) -> Value {
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
                    Template::load(chat.template.as_deref()).map_err(EvalError::Parameter)?;
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
