"""livecert: a certification and compliance harness for live-dealer Sic Bo and Xoc Dia.

Layers (ARCHITECTURE.md): rules and contract at the bottom, adapters above them, harness logic,
then the pytest fixtures and steps, and the certify command on top. The reference implementation
(livecert.reference) stands apart and shares no code with the rest.
"""

__version__ = "0.1.0"
