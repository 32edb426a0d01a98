"""The certify command: run the suite against a target, then judge and report (top layer)."""

from livecert.certify.certificate import build_certificate
from livecert.certify.runner import CertifyOptions, certify

__all__ = ["CertifyOptions", "build_certificate", "certify"]
