//! What the reordering tests share: a generated Lite set balanced over cascade lengths.

use pbebench::generate::{generate, Balance, MaxRules, Preset};
use pbebench::Instance;

/// `size` Lite instances named `name`, seeded by `seed`, balanced over cascade lengths 2
/// to `longest` (as many rules allowed).
pub fn lite_lengths(name: &str, longest: usize, size: usize, seed: u64) -> Vec<Instance> {
    let mut p = Preset::Lite.params();
    p.name = name.into();
    p.cascade_lens = (2..=longest).collect();
    p.balance = Balance::Length;
    p.size = size;
    p.seed = seed;
    p.max_rules = MaxRules::Fixed(longest);
    let mut instances = Vec::new();
    generate(&p, &(), &mut |i| {
        instances.push(i);
        Ok(())
    })
    .unwrap();
    instances
}
