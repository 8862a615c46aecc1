//! The first message of an episode: the task, the budget and the rules of the game, for
//! either tool protocol, and the tool definitions sent with every request.

use super::actions::{RUN_HIDDEN, SUBMIT, TEST_CASCADE};
use super::{InteractiveSpec, ToolProtocol};
use pbebench::probe::Task;
use pbebench::pylit::repr_list;
use serde_json::{json, Value};

/// Feedback rounds without probes (`--strategy feedback`): the tools but `run_hidden`,
/// and how an answer is checked.
fn feedback_how(spec: &InteractiveSpec) -> String {
    let tools = match spec.tool_protocol {
        ToolProtocol::Tools => format!(
            "You have two tools:\n\
             - {TEST_CASCADE}(cascade): tells you which of the examples above a candidate gets wrong. It is free.\n\
             - {SUBMIT}(cascade): your final answer; it ends the task.\n\
             A cascade is a list of rule strings in the order they apply, such as [\"replace('ab', 'c')\", \"replace('c', '')\"]."
        ),
        ToolProtocol::Text => format!(
            "You can use two tools by writing a fenced block whose language is the tool's name; the results come back in the next message, one ```result block per tool block, in order.\n\
             - ```{TEST_CASCADE}\n[\"replace('ab', 'c')\", \"replace('c', '')\"]\n```\n  tells you which of the examples above a candidate gets wrong. It is free.\n\
             - ```{SUBMIT}\n[\"replace('ab', 'c')\", \"replace('c', '')\"]\n```\n  your final answer; it ends the task."
        ),
    };
    format!(
        "{tools}\nYou may also answer with a cascade in a ```python block and no tool: it is checked against the examples, and if it gets any wrong you are told which and may try again."
    )
}

/// The prompt of an episode on `task`.
pub(crate) fn render(task: &Task, spec: &InteractiveSpec) -> String {
    let how = match spec.tool_protocol {
        _ if spec.feedback && spec.probe_budget == 0 => feedback_how(spec),
        ToolProtocol::Tools => format!(
            "You have three tools:\n\
             - {RUN_HIDDEN}(inputs): runs the hidden program on strings of your choice and returns its outputs. Every input counts against your probe budget of {budget} inputs in all; inputs may only use the letters {alphabet} and have at most {max_len} characters.\n\
             - {TEST_CASCADE}(cascade): tells you which of the examples above and of the inputs you have probed a candidate gets wrong. It is free.\n\
             - {SUBMIT}(cascade): your final answer; it ends the task.\n\
             A cascade is a list of rule strings in the order they apply, such as [\"replace('ab', 'c')\", \"replace('c', '')\"].",
            budget = spec.probe_budget,
            alphabet = task.alphabet,
            max_len = task.max_probe_len,
        ),
        ToolProtocol::Text => format!(
            "You can use three tools by writing a fenced block whose language is the tool's name; the results come back in the next message, one ```result block per tool block, in order.\n\
             - ```{RUN_HIDDEN}\n[\"ab\", \"ba\"]\n```\n  runs the hidden program on strings of your choice and returns its outputs. Every input counts against your probe budget of {budget} inputs in all; inputs may only use the letters {alphabet} and have at most {max_len} characters.\n\
             - ```{TEST_CASCADE}\n[\"replace('ab', 'c')\", \"replace('c', '')\"]\n```\n  tells you which of the examples above and of the inputs you have probed a candidate gets wrong. It is free.\n\
             - ```{SUBMIT}\n[\"replace('ab', 'c')\", \"replace('c', '')\"]\n```\n  your final answer; it ends the task.",
            budget = spec.probe_budget,
            alphabet = task.alphabet,
            max_len = task.max_probe_len,
        ),
    };
    format!(
        "Each output string below was produced from the input string above it by a hidden program: a sequence of rewrite rules applied one after another. Every rule is a call of Python's `replace`: replace(A, B) turns every occurrence of A into B, scanning from left to right without overlaps, and text it has just inserted is not scanned again. Since each rule works on the result of the rules before it, their order matters.\n\n\
         Your task is to find the hidden program: a sequence of rules that behaves like it on every input, not only on these examples.\n\n\
         {how}\n\n\
         You have at most {turns} turns. If you run out of turns, or ask for more probes than you have left, your last submitted cascade counts, else the last one you tested, else the last ```python block you wrote.\n\n\
         Every rule is written as the string \"replace(A, B)\" with Python string literals A and B: A has 1 to {len} characters, B at most {len} (it may be empty), both only the characters {alphabet}. Use no more than {rules} rules, and nothing but `replace`.\n\n\
         Inputs:\n{inputs}\n\nOutputs:\n{outputs}\n",
        turns = spec.max_turns,
        len = task.max_rule_len,
        rules = task.max_rules,
        alphabet = task.alphabet,
        inputs = repr_list(&task.inputs),
        outputs = repr_list(&task.outputs),
    )
}

/// The chat-completions tool definitions of the tools protocol (without `run_hidden` in
/// feedback rounds without probes).
pub(crate) fn tool_definitions(spec: &InteractiveSpec) -> Value {
    let cascade = json!({
        "type": "array",
        "items": {"type": "string"},
        "description": "the rules in the order they apply, each like \"replace('ab', 'c')\"",
    });
    let function = |name: &str, description: &str, parameters: Value| {
        json!({"type": "function", "function": {
            "name": name, "description": description, "parameters": parameters,
        }})
    };
    let mut tools = json!([
        function(
            RUN_HIDDEN,
            "Run the hidden program on inputs of your choice; returns its outputs. Every input counts against the probe budget.",
            json!({"type": "object", "properties": {"inputs": {"type": "array", "items": {"type": "string"}}}, "required": ["inputs"]}),
        ),
        function(
            TEST_CASCADE,
            "Test a candidate cascade: which visible examples and probed inputs it gets wrong.",
            json!({"type": "object", "properties": {"cascade": cascade}, "required": ["cascade"]}),
        ),
        function(
            SUBMIT,
            "Submit your final cascade; this ends the task.",
            json!({"type": "object", "properties": {"cascade": cascade}, "required": ["cascade"]}),
        ),
    ]);
    if spec.feedback && spec.probe_budget == 0 {
        tools.as_array_mut().expect("a list").remove(0);
    }
    tools
}
