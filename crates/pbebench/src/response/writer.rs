//! A cascade written as an answer, in the released format.

use crate::rule::Cascade;

/// A cascade written as an answer in the released format: one fenced python block
/// holding a Python list of `replace('a', 'b')` strings (`[]` for the identity). Every
/// accepted spelling parses back to the same cascade.
pub fn render_answer(cascade: &Cascade) -> String {
    let calls: Vec<String> = cascade
        .rules()
        .iter()
        .map(|r| {
            format!(
                "replace({}, {})",
                crate::pylit::repr(r.pattern()),
                crate::pylit::repr(r.replacement())
            )
        })
        .collect();
    format!("```python\n{}\n```", crate::pylit::repr_list(&calls))
}
