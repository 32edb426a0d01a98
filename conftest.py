"""The repository's pytest configuration: livecert's plugin, which registers the suite's options
(the suite itself loads with the features: features/conftest.py). Named here for a session with
plugin autoloading off; with it on, its entry point has loaded it already."""

pytest_plugins = ["livecert.suite.plugin"]
