"""inspect_ai's entry point (``[project.entry-points.inspect_ai]``): importing it registers
the ``pbebench/...`` tasks of ``pbebench.inspect_ai``."""

from .inspect_ai import full, full_25_30, lite, lite_moreeg, lite_published, pbebench, reorder  # noqa: F401
