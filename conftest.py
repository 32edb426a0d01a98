"""The certification suite's pytest plugins, one module per job (see ARCHITECTURE.md)."""

pytest_plugins = [
    "fixtures.options",
    "fixtures.target",
    "fixtures.run_end",
    "fixtures.scene",
    "fixtures.evidence",
    "fixtures.step_lookup",
    "steps.common",
    "steps.sweep",
    "steps.rounds",
    "steps.access",
    "steps.bad_input",
    "steps.money",
    "steps.instant",
    "steps.instant_access",
    "steps.lost_answers",
    "steps.limits",
    "steps.restart",
    "steps.sicbo",
    "steps.xocdia",
]
