"""Suite-wide settings: hypothesis without deadlines (the machines are noisy)."""

import os

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
# `HYPOTHESIS_PROFILE=deep make test` explores ten times more.
settings.register_profile("deep", parent=settings.get_profile("default"), max_examples=1000)
# `make mutants` wants to know that a test fails, not its smallest example: no shrinking.
settings.register_profile("mutants", parent=settings.get_profile("default"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
