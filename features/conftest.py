"""The certification suite's pytest plugins, one module per job (see ARCHITECTURE.md), loaded
when the features are collected and not before: a pytest session that never collects them
(a vendor's own tests in the same virtualenv) gets only the options of livecert.suite.plugin."""

pytest_plugins = [
    "livecert.suite.plugin",  # already loaded by its entry point, unless autoloading is off
    "livecert.suite.fixtures.options",
    "livecert.suite.fixtures.workers",
    "livecert.suite.fixtures.target",
    "livecert.suite.fixtures.run_end",
    "livecert.suite.fixtures.scene",
    "livecert.suite.fixtures.allure_labels",
    "livecert.suite.fixtures.evidence",
    "livecert.suite.fixtures.live_streams",
    "livecert.suite.fixtures.memory",
    "livecert.suite.fixtures.step_lookup",
    "livecert.suite.steps.common",
    "livecert.suite.steps.sweep",
    "livecert.suite.steps.rounds",
    "livecert.suite.steps.refunds",
    "livecert.suite.steps.disconnection",
    "livecert.suite.steps.access",
    "livecert.suite.steps.bad_input",
    "livecert.suite.steps.money",
    "livecert.suite.steps.instant",
    "livecert.suite.steps.instant_access",
    "livecert.suite.steps.lost_answers",
    "livecert.suite.steps.idempotency",
    "livecert.suite.steps.limits",
    "livecert.suite.steps.restart",
    "livecert.suite.steps.sicbo",
    "livecert.suite.steps.xocdia",
    "livecert.suite.steps.history",
]
