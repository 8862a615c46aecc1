//! What a request may cost before it is sent: the worst case reserved against a run's
//! budget ([`crate::Control`]), for a single answer and for each turn of an episode.

use crate::sample::{Prices, Usage};

/// Tokens a chat template may add around the messages of a request (role markers, a
/// default system prompt, the rendering of tool definitions): a margin on top of the
/// body's bytes in [`worst_cost`].
pub(crate) const TEMPLATE_MARGIN_TOKENS: u64 = 256;

/// The worst-case cost of a chat request whose JSON body is `body`, with at most
/// `max_output` answer tokens: every byte of the body counted as a prompt token (a
/// byte-level BPE tokenizer, as GPT, Llama 3 and Qwen use, never makes more tokens than
/// bytes; the body's keys and escapes cover most of what a chat template adds) plus
/// [`TEMPLATE_MARGIN_TOKENS`], and `max_output` answer tokens. Without `max_output` the
/// answer is not bounded, which the configuration refuses when output is priced.
pub(crate) fn worst_cost(body: &str, max_output: Option<u64>, prices: Prices) -> f64 {
    Usage {
        prompt_tokens: Some(body.len() as u64 + TEMPLATE_MARGIN_TOKENS),
        completion_tokens: max_output,
        reasoning_tokens: None,
    }
    .cost(prices)
}
