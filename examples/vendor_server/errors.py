"""The vendor's error: HTTP 200 with `success: false` and {code, key, text}."""


class VendorError(Exception):
    def __init__(self, code: int, text: str, key: str = "E_PARAM") -> None:
        super().__init__(text)
        self.code, self.text, self.key = code, text, key
