"""pbebench: multi-step programming by examples over string-rewrite cascades.

Generate PBEBench problems, apply cascades, classify rule relations, parse and score model
responses, and compute batch rewards for RL, with the same results as the ``pbebench``
command line for the same inputs and seed. See ``help(pbebench.reward)`` and README.md.

The framework integrations are submodules that import their framework only when imported:
``pbebench.inspect_ai`` (the ``[inspect]`` extra) and ``pbebench.verl`` (``[verl]``).
"""

from ._pbebench import (
    DEFAULT_PROBE_LEN,
    TEMPLATES,
    Generation,
    Oracle,
    OverBudget,
    ProbeRefused,
    Rewarder,
    __version__,
    apply,
    generate,
    pairs,
    parse_order,
    parse_response,
    prompt,
    read_dataset,
    relations,
    render_answer,
    reorder,
    reorder_prompt,
    reward,
    score,
    score_order,
    solve_order,
    summary,
    to_authors,
    vet,
)

__all__ = [
    "DEFAULT_PROBE_LEN",
    "TEMPLATES",
    "Generation",
    "Oracle",
    "OverBudget",
    "ProbeRefused",
    "Rewarder",
    "__version__",
    "apply",
    "generate",
    "pairs",
    "parse_order",
    "parse_response",
    "prompt",
    "read_dataset",
    "relations",
    "render_answer",
    "reorder",
    "reorder_prompt",
    "reward",
    "score",
    "score_order",
    "solve_order",
    "summary",
    "to_authors",
    "vet",
]


def load_environment(**kwargs):
    """verifiers' entry point (the Environment Hub's convention: ``vf.load_environment("pbebench",
    task="probe", ...)`` imports this module and calls this): ``pbebench.verifiers_env.load_environment``.
    Needs verifiers (``pip install 'pbebench[verifiers]'``); importing pbebench never imports it."""
    from .verifiers_env import load_environment as load

    return load(**kwargs)
