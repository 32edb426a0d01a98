"""The certification suite as installed: the Gherkin features, their step definitions and the
pytest fixtures and hooks that run them.

In the repository they keep their top-level folders (`features/`, `steps/`, `fixtures/`); the
distribution maps them here (pyproject.toml, `package-dir`), as `livecert.suite.features`,
`livecert.suite.steps` and `livecert.suite.fixtures`, so that an installed livecert carries
everything a run needs and no top-level `steps` or `fixtures` package collides with another
distribution's. `livecert.suite.plugin` is the pytest plugin (entry point `pytest11`);
`livecert.suite.location` finds the features for `livecert certify`.
"""
