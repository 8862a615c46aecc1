"""pbebench: multi-step programming by examples over string-rewrite cascades.

Generate PBEBench problems, apply cascades, classify rule relations, parse and score model
responses, and compute batch rewards for RL, with the same results as the ``pbebench``
command line for the same inputs and seed. See ``help(pbebench.reward)`` and README.md.
"""

from ._pbebench import (
    Generation,
    Rewarder,
    __version__,
    apply,
    generate,
    pairs,
    parse_response,
    prompt,
    relations,
    reward,
    score,
)

__all__ = [
    "Generation",
    "Rewarder",
    "__version__",
    "apply",
    "generate",
    "pairs",
    "parse_response",
    "prompt",
    "relations",
    "reward",
    "score",
]
