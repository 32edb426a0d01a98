"""What went wrong on the wire is said once, in words that are true, and what came is kept.

A target that closes the connection before its answer's end, or drips it past the deadline, is
said to have sent the bytes it sent (not "0 bytes"), and those bytes are kept in the exchange as
evidence; a TLS failure names its cause and how to trust a lab's own authority (--ca-bundle); a
redirect to another host is not followed (the run's credentials go to the target only), and is
named as such rather than as the other host refusing the token.
"""

import datetime
import ipaddress
import socket
import ssl
import time
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from fake_target import INFO, cut_after, dripping_body, fake_target, send_json, serving

from livecert.adapters.bounded_session import bounded_session
from livecert.adapters.bounds import Bounds
from livecert.adapters.errors import TargetError
from livecert.adapters.http import HttpAdapter

# answers that drip, stall or close against short deadlines
pytestmark = pytest.mark.timing


def _adapter(url: str, deadline: float = 5.0) -> HttpAdapter:
    return HttpAdapter(url, "op-token", "dl-token", bounds=Bounds.for_run(deadline))


def _info_error(url: str, deadline: float = 5.0) -> tuple[TargetError, list]:
    adapter = _adapter(url, deadline)
    with pytest.raises(TargetError) as raised:
        adapter.info()
    return raised.value, adapter.recorder.drain()


@pytest.mark.parametrize(
    ("head", "body", "says"),
    [
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n",
            b'{"implem',
            "answered 200 and closed the connection after 8 of the 500 bytes its "
            "Content-Length declared",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            b'25\r\n{"implementation": {"name": "fake", "\r\n',
            "answered 200 and closed the connection after 37 bytes of its body, before the "
            "body's end",
        ),
    ],
    ids=["short of its content-length", "chunked without its last chunk"],
)
def test_an_answer_cut_short_says_what_came_and_keeps_it(
    head: bytes, body: bytes, says: str
) -> None:
    with fake_target(cut_after(head, body)) as url:
        error, exchanges = _info_error(url)
    assert says in str(error), str(error)
    assert "ChunkedEncodingError" not in str(error) and "IncompleteRead" not in str(error)
    [exchange] = exchanges  # an answer cut short is not sent again
    came = body.split(b"\r\n")[1] if b"Transfer-Encoding" in head else body
    assert (exchange.status, exchange.response_body) == (200, came.decode())
    assert exchange.error == says


def test_a_dripping_answer_past_its_deadline_says_how_much_came_and_keeps_it() -> None:
    with fake_target(lambda h: dripping_body(h, every=0.02)) as url:
        error, exchanges = _info_error(url, deadline=0.6)
    said = str(error)
    assert "no whole answer within 0.6 s" in said, said
    came = exchanges[-1].response_body
    assert came and set(came) == {" "}, came  # the spaces that dripped before the deadline
    assert f"it answered 200, and {len(came)} bytes of its body came" in said, said
    assert exchanges[-1].status == 200


def test_an_answer_that_stalls_past_the_read_timeout_is_not_said_closed() -> None:
    def stall(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b" " * 10)
        handler.wfile.flush()
        time.sleep(3)

    with fake_target(stall) as url:
        adapter = HttpAdapter(
            url, "op-token", "dl-token", timeout=(1, 1), bounds=Bounds.for_run(10)
        )
        with pytest.raises(TargetError) as raised:  # a write: never sent again
            adapter.create_table("sicbo")
    said = str(raised.value)
    assert "answered 200, then sent nothing for 1 s after 10 bytes of its body" in said, said
    assert "closed" not in said


def test_a_connection_closed_without_an_answer_is_said_in_words() -> None:
    def close(handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True
        handler.connection.shutdown(socket.SHUT_RDWR)

    with fake_target(close) as url:
        adapter = _adapter(url)
        with pytest.raises(TargetError) as raised:  # a write: never sent again
            adapter.create_table("sicbo")
    said = str(raised.value)
    assert f"the connection to {url} broke: the target closed it without an answer" in said
    assert "ConnectionError" not in said and "RemoteDisconnected" not in said


def test_a_redirect_to_another_host_is_not_followed_and_said_so() -> None:
    reached: list[str] = []

    with fake_target(lambda h: (reached.append(h.path), send_json(h, 200, INFO))) as elsewhere:
        other = elsewhere.replace("127.0.0.1", "localhost")  # another host, the same machine

        def away(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(301)
            handler.send_header("Location", f"{other}/v1/info")
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with fake_target(away) as url:
            error, exchanges = _info_error(url)
    said = str(error)
    assert f"answered 301, a redirect to another host ({other}/v1/info): not followed" in said
    assert "--target-url" in said and "token" not in said
    assert reached == []  # nothing, the credentials least of all, went to the other host
    assert [e.status for e in exchanges] == [301]


def test_a_redirect_elsewhere_is_answered_as_it_came_where_none_is_followed() -> None:
    """A mapping's calls follow no redirect: a login answering 302 to another host is that
    answer, for the mapping to read (docs/mapping.md), not an error."""

    def login(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", "http://localhost:9/lobby")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    with fake_target(login) as url:
        session = bounded_session(url)
        answer = session.request(
            "POST", f"{url}/login.php", allow_redirects=False, timeout=Bounds().deadline((5, 5))
        )
    assert (answer.status_code, answer.headers["Location"]) == (302, "http://localhost:9/lobby")


def test_a_redirect_within_the_target_is_followed() -> None:
    def within(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/v1/info":
            handler.send_response(308)
            handler.send_header("Location", "/v2/info")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        else:
            send_json(handler, 200, INFO)

    with fake_target(within) as url:
        assert _adapter(url).info().name == INFO["implementation"]["name"]


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "livecert test authority")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "ca.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def _tls_target(cert_file: Path, key_file: Path) -> AbstractContextManager[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            send_json(self, 200, INFO)

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return serving(Handler, context)


def test_a_tls_failure_names_its_cause_and_the_ca_bundle_trusts_a_labs_authority(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LIVECERT_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    cert_file, key_file = _self_signed(tmp_path)
    with _tls_target(cert_file, key_file) as url:
        error, _ = _info_error(url)
        said = str(error)
        assert f"TLS with {url} failed: certificate verify failed: self-signed certificate" in said
        assert "--ca-bundle FILE (or REQUESTS_CA_BUNDLE)" in said
        assert "SSLError" not in said
        monkeypatch.setenv("LIVECERT_CA_BUNDLE", str(cert_file))  # what --ca-bundle sets
        assert _adapter(url).info().name == INFO["implementation"]["name"]
