"""What a lab reads after a run: the certificate page and PDF, charts, the rules catalogue with a
link target per line, the Allure HTML report, and a manifest of hashes over all of it.

Imports only `livecert.rules` and `livecert.contract`; `livecert.certify` calls `publish` once the
certificate is written.
"""

from livecert.report.publish import PublishResult, publish

__all__ = ["PublishResult", "publish"]
