"""The embedded reference binds its own free port and the harness talks to that server: several
certifications starting at once (the self-test's workers, pytest-xdist) never meet each other's
server, which a port picked before the server started could not promise (two picked the same
one; the loser failed to bind and its harness was refused by the winner's tokens)."""

from concurrent.futures import ThreadPoolExecutor

from livecert.adapters import HttpAdapter
from livecert.harness.embedded import EmbeddedServer


def _start_and_check(_: int) -> tuple[str, str]:
    with EmbeddedServer() as server:
        HttpAdapter(server.url, server.operator_token, server.dealer_token).check_credentials()
        log = server.process.args if server.process else []
        return server.url, " ".join(map(str, log))


def test_servers_started_at_once_each_answer_their_own_harness() -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        started = list(pool.map(_start_and_check, range(4)))
    urls = [url for url, _ in started]
    assert len(set(urls)) == 4 and all(url.startswith("http://127.0.0.1:") for url in urls)
    assert all("--port 0" in command for _, command in started)  # the server picks the port
