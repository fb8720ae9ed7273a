"""The load balancers of ``docs/deploy/`` as shipped: nginx and HAProxy in front of three
real ``sidecar serve`` processes, over TLS, with real WebSocket clients.

Only what a test machine must change is changed in the configs (ports, file paths, the
worker user, the log target), each by an exact replacement that fails when the shipped
file no longer has the line — so the file tested is the file documented. The programs
come from Debian's ``nginx`` and ``haproxy`` packages: without them these tests fail
(``.ci/run`` installs them), they are never skipped.

The three sidecars share one real Redis (``--store redis://…``). The WebSockets carry the
table in their query (``/ws?table=<name>``, as every shipped client opens them): the
proxies send every member of one table to one process, and spread the tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from sidecar.client import SidecarClient, table_url
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, Peer, run
from tests.redis_server import RedisServer
from tests.support.serve import ServeProcess, free_port

pytestmark = pytest.mark.redis  # the backends share a real redis-server

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "docs" / "deploy"
#: The public name the configs serve, and an address a browser could reach them by.
NAME = "dice.example.org"
LAN_IP = "192.0.2.10"
#: The ports the shipped configs forward to.
SHIPPED_BACKENDS = ("127.0.0.1:8765", "127.0.0.1:8766", "127.0.0.1:8767")


def program(name: str) -> str:
    """A proxy program from Debian's package; fails the test (never skips) when missing."""
    found = shutil.which(name) or next(
        (path for path in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.path.exists(path)),
        None)
    if found is None:
        pytest.fail(f"{name} is not installed: `apt-get install {name}` (.ci/run does it); "
                    "the load balancer configs of docs/deploy/ are tested with the real one")
    return found


def replace(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced, which must be there: a config that changed under the
    test fails here instead of being tested half-adapted."""
    assert old in text, f"the shipped config no longer has {old!r}"
    return text.replace(old, new)


@dataclass
class Site:
    """Where a proxy listens for this test, and the files it is given."""

    folder: Path
    http_port: int = field(default_factory=free_port)
    https_port: int = field(default_factory=free_port)

    @property
    def origin(self) -> str:
        """The page's origin as a browser reaching the proxy by its name sends it."""
        return f"https://{NAME}:{self.https_port}"


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for the public name, the LAN address and 127.0.0.1."""
    openssl = program("openssl")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", f"/CN={NAME}", "-keyout", str(key), "-out", str(cert),
                    "-addext", f"subjectAltName=DNS:{NAME},IP:{LAN_IP},IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def nginx_config(site: Site, backends: list[int], cert: Path, key: Path) -> str:
    """docs/deploy/nginx.conf with the test's ports, and every file it writes in ``site``."""
    text = (DEPLOY / "nginx.conf").read_text()
    tmp = site.folder
    # As root nginx's workers take the configured user, who may not enter pytest's folder.
    text = replace(text, "user www-data;", "user root;" if os.geteuid() == 0 else "")
    text = replace(text, "pid /run/nginx.pid;", f"pid {tmp}/nginx.pid;")
    text = replace(text, "error_log /var/log/nginx/error.log warn;",
                   f"error_log {tmp}/error.log info;")
    temp = "".join(f"    {kind}_temp_path {tmp}/{kind};\n"
                   for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = replace(text, "    access_log /var/log/nginx/access.log;\n",
                   f"    access_log {tmp}/access.log;\n{temp}")
    text = replace(text, "listen 80;", f"listen 127.0.0.1:{site.http_port};")
    text = replace(text, "listen 443 ssl;", f"listen 127.0.0.1:{site.https_port} ssl;")
    text = replace(text, f"/etc/letsencrypt/live/{NAME}/fullchain.pem", str(cert))
    text = replace(text, f"/etc/letsencrypt/live/{NAME}/privkey.pem", str(key))
    for shipped, port in zip(SHIPPED_BACKENDS, backends, strict=True):
        text = replace(text, shipped, f"127.0.0.1:{port}")
    return text


def haproxy_config(site: Site, backends: list[int], cert: Path, key: Path) -> str:
    """docs/deploy/haproxy.cfg with the test's ports and certificate, logging to stderr."""
    text = (DEPLOY / "haproxy.cfg").read_text()
    combined = site.folder / "combined.pem"
    combined.write_text(cert.read_text() + key.read_text())
    text = replace(text, "    log /dev/log local0\n", "    log stderr format raw local0\n")
    text = replace(text, "    user haproxy\n    group haproxy\n", "")
    text = replace(text, "bind :80", f"bind 127.0.0.1:{site.http_port}")
    text = replace(text, f"bind :443 ssl crt /etc/haproxy/certs/{NAME}.pem",
                   f"bind 127.0.0.1:{site.https_port} ssl crt {combined}")
    for shipped, port in zip(SHIPPED_BACKENDS, backends, strict=True):
        text = replace(text, shipped, f"127.0.0.1:{port}")
    return text


def wait_listening(port: int, process: subprocess.Popen[bytes], log: Path,
                   timeout: float = 20) -> None:
    """Until ``port`` accepts connections (a starting process has nothing else to wait on)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the proxy exited with {process.returncode}: "
                        + log.read_text(errors="replace")[-3000:])
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.02)
    pytest.fail(f"the proxy did not listen on {port} in {timeout} s")


@contextlib.contextmanager
def running(command: list[str], site: Site) -> Iterator[None]:
    """A proxy as a foreground process, its output in ``site``'s folder, stopped after."""
    log = site.folder / "proxy.out"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_listening(site.https_port, process, log)
        wait_listening(site.http_port, process, log)
        yield
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)


def run_nginx(site: Site, backends: list[int], cert: Path, key: Path
              ) -> contextlib.AbstractContextManager[None]:
    conf = site.folder / "nginx.conf"
    conf.write_text(nginx_config(site, backends, cert, key))
    return running([program("nginx"), "-p", f"{site.folder}/", "-c", str(conf),
                    "-e", str(site.folder / "error.log"), "-g", "daemon off;"], site)


def run_haproxy(site: Site, backends: list[int], cert: Path, key: Path
                ) -> contextlib.AbstractContextManager[None]:
    cfg = site.folder / "haproxy.cfg"
    cfg.write_text(haproxy_config(site, backends, cert, key))
    return running([program("haproxy"), "-db", "-f", str(cfg)], site)


PROXIES: dict[str, Callable[..., contextlib.AbstractContextManager[None]]] = {
    "nginx": run_nginx, "haproxy": run_haproxy}


class Backends:
    """Three ``sidecar serve`` processes as DEPLOY.md starts them (same tokens, origins,
    per-address limits), each with its own ``--public-url`` so that a GM's join link tells
    which one a connection reached."""

    def __init__(self, folder: Path, origins: list[str], store: str) -> None:
        self.folder = folder
        self.origins = origins
        self.store = store
        self.processes: list[ServeProcess | None] = [None, None, None]
        self.ports: list[int] = [0, 0, 0]
        try:
            for index in range(3):
                self.start(index)
        except BaseException:
            self.close()  # the ones already started
            raise

    def start(self, index: int) -> None:
        args = ["--store", self.store,
                "--public-url", f"https://b{index + 1}.backend.test/",
                "--max-connections-per-address", "0", "--max-failed-hellos", "60"]
        for origin in self.origins:
            args += ["--origin", origin]
        if self.ports[index]:  # started again: on its port, where the proxies expect it
            args += ["--port", str(self.ports[index])]
        process = ServeProcess(*args)
        self.ports[index] = int(urlsplit(process.url).port or 0)
        self.processes[index] = process

    def stop(self, index: int) -> None:
        process = self.processes[index]
        if process is not None:
            process.stop()
        self.processes[index] = None

    def close(self) -> None:
        for index in range(3):
            self.stop(index)


@dataclass
class Deployment:
    """The backends, a certificate, and where each proxy will listen."""

    backends: Backends
    cert: Path
    key: Path
    sites: dict[str, Site]

    def proxy(self, kind: str) -> contextlib.AbstractContextManager[None]:
        return PROXIES[kind](self.sites[kind], self.backends.ports, self.cert, self.key)

    def context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cert))


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("deploy")
    sites = {}
    for kind in PROXIES:
        (root / kind).mkdir()
        sites[kind] = Site(root / kind)
    cert, key = make_certificate(root)
    with RedisServer(root / "redis") as redis:
        backends = Backends(root, [site.origin for site in sites.values()], redis.url)
        try:
            yield Deployment(backends, cert, key, sites)
        finally:
            backends.close()


async def open_peer(deployment: Deployment, kind: str, host: str = NAME,
                    origin: str | None = None, table: str | None = None) -> Peer:
    """A WebSocket to the proxy as a browser at ``https://host:port`` opens it (the proxy
    is reached on the loopback whatever name the URL gives), with ``?table=`` as the
    clients add it when ``table`` is given (without: an older client)."""
    port = deployment.sites[kind].https_port
    url = f"wss://{host}:{port}/ws"
    if table is not None:
        url = table_url(url, table)
    ws = await connect(url, host="127.0.0.1", port=port,
                       ssl=deployment.context(), origin=origin, compression=None,  # type: ignore[arg-type]
                       max_size=1 << 22)
    return Peer(ws)


def backend_of(welcome: dict) -> str:
    """Which process answered: the host of the GM's join link (each has its own here)."""
    return urlsplit(welcome["join"]["link"]).hostname or ""


def https_get(deployment: Deployment, kind: str, path: str = "/"
              ) -> tuple[int, http.client.HTTPMessage, bytes]:
    """GET through the proxy as a browser at ``https://NAME:port`` (headers: any case,
    HAProxy writes them in lower case)."""
    port = deployment.sites[kind].https_port
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=deployment.context(),
                                             timeout=10)
    try:
        connection.request("GET", path, headers={"Host": f"{NAME}:{port}"})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("kind", PROXIES)
def test_the_shipped_config_passes_the_proxys_own_check(deployment: Deployment,
                                                        kind: str) -> None:
    site = deployment.sites[kind]
    ports = deployment.backends.ports
    if kind == "nginx":
        conf = site.folder / "checked.conf"
        conf.write_text(nginx_config(site, ports, deployment.cert, deployment.key))
        command = [program("nginx"), "-t", "-p", f"{site.folder}/", "-c", str(conf),
                   "-e", str(site.folder / "check.log")]
    else:
        cfg = site.folder / "checked.cfg"
        cfg.write_text(haproxy_config(site, ports, deployment.cert, deployment.key))
        command = [program("haproxy"), "-c", "-f", str(cfg)]
    checked = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("kind", PROXIES)
def test_a_tables_members_meet_on_one_process_and_tables_spread(deployment: Deployment,
                                                                kind: str) -> None:
    origin = deployment.sites[kind].origin

    async def gm_at(table: str, number: int) -> tuple[Peer, dict]:
        gm = await open_peer(deployment, kind, origin=origin, table=table)
        return gm, await gm.join(table=table, name=f"MJ {number}", role="gm")

    async def scenario() -> None:
        gms = []
        try:
            # Three GMs held open at one table (the least busy process would take each in
            # turn without affinity): all on one process.
            table = f"crypte {kind} & #été"
            for number in range(3):
                gms.append(await gm_at(table, number))
            assert len({backend_of(welcome) for _, welcome in gms}) == 1, [
                backend_of(welcome) for _, welcome in gms]
            for gm, _ in gms:
                outcome = await gm.roll("bloodlust", {"pool": 3})
                assert outcome["type"] == "outcome", outcome
                assert len(outcome["dice"]) == 3
            for gm, _ in gms:
                while len([m for m in gm.seen if m["type"] == "outcome"]) < 3:
                    await gm.recv()
                assert [m["seq"] for m in gm.seen if m["type"] == "outcome"] == [1, 2, 3]
            # Twelve tables, two members each: each table on one process, the tables over
            # several processes.
            where: dict[str, str] = {}
            for number in range(12):
                name = f"table {number} {kind}"
                pair = [await gm_at(name, 0), await gm_at(name, 1)]
                gms += pair
                backends = {backend_of(welcome) for _, welcome in pair}
                assert len(backends) == 1, (name, backends)
                where[name] = backends.pop()
            assert len(set(where.values())) >= 2, where
        finally:
            for gm, _ in gms:
                await gm.close()

    with deployment.proxy(kind):
        run(scenario())


@pytest.mark.parametrize("kind", PROXIES)
def test_a_socket_without_the_table_still_joins(deployment: Deployment, kind: str) -> None:
    """An older client (no ``?table=``) is balanced without affinity, and served."""
    async def scenario() -> None:
        peer = await open_peer(deployment, kind, origin=deployment.sites[kind].origin)
        assert (await peer.join(table=f"ancien {kind}"))["type"] == "welcome"
        assert (await peer.roll("bloodlust", {"pool": 1}))["type"] == "outcome"
        await peer.close()

    with deployment.proxy(kind):
        run(scenario())


@pytest.mark.parametrize("kind", PROXIES)
def test_the_python_client_joins_and_rolls_through_the_proxy(deployment: Deployment,
                                                             kind: str) -> None:
    async def scenario() -> None:
        url = f"wss://127.0.0.1:{deployment.sites[kind].https_port}/ws"
        async with SidecarClient(url, table="crypte", name="Aengus", token=PLAYER_TOKEN,
                                 ssl=deployment.context()) as client:
            outcome = await client.roll("bloodlust", {"pool": 2})
            assert outcome["type"] == "outcome" and len(outcome["dice"]) == 2
        # Two GMs through the client (which adds ?table=): one process.
        gms = [SidecarClient(url, table="crypte", name=f"MJ {n}", role="gm", token=GM_TOKEN,
                             ssl=deployment.context()) for n in range(2)]
        for gm in gms:
            await gm.connect()
        try:
            assert backend_of(gms[0].welcome) == backend_of(gms[1].welcome)
        finally:
            for gm in gms:
                await gm.close()

    with deployment.proxy(kind):
        run(scenario())


@pytest.mark.parametrize("kind", PROXIES)
def test_the_page_is_served_through_the_proxy_naming_its_public_socket(
        deployment: Deployment, kind: str) -> None:
    port = deployment.sites[kind].https_port
    with deployment.proxy(kind):
        status, headers, body = https_get(deployment, kind)
        assert status == 200, body[:300]
        assert headers.get("Content-Type", "").startswith("text/html")
        assert b"<html" in body.lower()
        # The page's policy names the socket as the browser reaches it: the Host went on
        # with its port.
        assert f"wss://{NAME}:{port}" in headers.get("Content-Security-Policy", "")
        assert https_get(deployment, kind, "/nothing-here")[0] == 404
        # Plain http is sent to https.
        connection = http.client.HTTPConnection("127.0.0.1", deployment.sites[kind].http_port,
                                                timeout=10)
        try:
            connection.request("GET", "/", headers={"Host": NAME})
            response = connection.getresponse()
            assert response.status == 301
            assert response.getheader("Location", "").startswith(f"https://{NAME}")
        finally:
            connection.close()


@pytest.mark.parametrize("kind", PROXIES)
def test_origins_are_checked_behind_the_proxy_as_on_the_sidecar(deployment: Deployment,
                                                                kind: str) -> None:
    port = deployment.sites[kind].https_port

    async def scenario() -> None:
        # The public name, listed with --origin on every process.
        peer = await open_peer(deployment, kind, origin=f"https://{NAME}:{port}")
        assert (await peer.join(table="crypte"))["type"] == "welcome"
        await peer.close()
        # The page reached by an IP address needs no flag: the sidecar compares the Origin
        # with the Host the proxy passed on, port included.
        peer = await open_peer(deployment, kind, host=LAN_IP, origin=f"https://{LAN_IP}:{port}")
        assert (await peer.join(table="crypte"))["type"] == "welcome"
        await peer.close()
        # Anything else is refused by the sidecar, through the proxy.
        with pytest.raises(InvalidStatus) as refused:
            await open_peer(deployment, kind, origin="https://evil.example.net")
        assert refused.value.response.status_code == 403

    with deployment.proxy(kind):
        run(scenario())


async def _outcome_seqs(client: SidecarClient, until: int) -> list[int]:
    """The seqs of the outcomes ``client`` received, up to ``until`` (bounded)."""
    seqs: list[int] = []
    async with asyncio.timeout(30):
        stream = client.outcomes()
        while not seqs or seqs[-1] < until:
            seqs.append((await anext(stream))["seq"])
    return seqs


async def _moved(client: SidecarClient, away_from: str) -> str:
    """Wait until ``client`` is joined again, on another process than ``away_from``."""
    async with asyncio.timeout(60):
        while not (client._ready.is_set() and backend_of(client.welcome) != away_from):
            await asyncio.sleep(0.02)
    return backend_of(client.welcome)


@pytest.mark.parametrize("kind", PROXIES)
def test_a_tables_process_stops_its_members_resume_on_another(deployment: Deployment,
                                                              kind: str) -> None:
    """The process a table's members share stops: they reconnect through the proxy, land
    on another process, together, and resume there, every event once; a member joining
    while it is down lands there too."""
    url = f"wss://127.0.0.1:{deployment.sites[kind].https_port}/ws"
    table = f"repli {kind}"
    stopped: list[int] = []

    def member(name: str) -> SidecarClient:
        return SidecarClient(url, table=table, name=name, role="gm", token=GM_TOKEN,
                             ssl=deployment.context(), reconnect=True, max_delay=1.0)

    async def scenario() -> None:
        members = [member(f"MJ {n}") for n in range(3)]
        late = member("MJ en retard")
        try:
            for each in members:
                await each.connect()
            first = {backend_of(each.welcome) for each in members}
            assert len(first) == 1, first
            serving = first.pop()
            rolled = [(await each.roll("bloodlust", {"pool": 1}))["seq"] for each in members]
            assert rolled == [1, 2, 3]
            index = int(serving.split(".")[0][1:]) - 1  # "b2.backend.test" → 1
            stopped.append(index)
            await asyncio.to_thread(deployment.backends.stop, index)
            now = {await _moved(each, serving) for each in members}
            assert len(now) == 1, now
            await late.connect()
            assert {backend_of(late.welcome)} == now
            again = await members[0].roll("bloodlust", {"pool": 1})
            assert again["seq"] == 4
            for each in members:
                assert await _outcome_seqs(each, 4) == [1, 2, 3, 4]
            assert await _outcome_seqs(late, 4) == [4]
        finally:
            for each in [*members, late]:
                await each.close()

    try:
        with deployment.proxy(kind):
            run(scenario(), timeout=120)
    finally:
        for index in stopped:
            deployment.backends.start(index)


def test_deploy_md_starts_the_processes_the_configs_forward_to() -> None:
    """DEPLOY.md links both configs and starts the sidecars on the ports they forward to."""
    deploy = (ROOT / "docs" / "DEPLOY.md").read_text()
    ports = " ".join(backend.rsplit(":", 1)[1] for backend in SHIPPED_BACKENDS)
    assert f"for port in {ports}; do" in deploy
    for name in ("nginx.conf", "haproxy.cfg"):
        assert f"(deploy/{name})" in deploy
        text = (DEPLOY / name).read_text()
        assert all(backend in text for backend in SHIPPED_BACKENDS)


#: Where each proxy writes the requests it serves (as the test configures it).
REQUEST_LOGS = {"nginx": "access.log", "haproxy": "proxy.out"}


@pytest.mark.parametrize("kind", PROXIES)
def test_no_link_puts_a_token_in_the_proxys_log(deployment: Deployment, kind: str) -> None:
    """Every link that carries a token — ``serve``'s printed player and GM links, the GM's
    join link (and its QR code) — carries it after ``#``: a browser opening it through the
    proxy sends the path and query only, so no token lands in the proxy's request log.
    (Before: ``?token=``, and the GM's and players' tokens were in ``access.log``.)"""
    async def gm_welcome() -> dict:
        gm = await open_peer(deployment, kind, origin=deployment.sites[kind].origin,
                             table="liens")
        welcome = await gm.join(table="liens", name="MJ", role="gm")
        await gm.close()
        return welcome

    printed = [found for process in deployment.backends.processes if process is not None
               for line in process.lines if GM_TOKEN in line or PLAYER_TOKEN in line
               for found in re.findall(r"https?://\S+", line)]
    log = deployment.sites[kind].folder / REQUEST_LOGS[kind]
    with deployment.proxy(kind):
        welcome = run(gm_welcome())
        links = [welcome["join"]["link"], *printed]
        assert len(printed) >= 2 * len(deployment.backends.processes)  # player's and GM's
        for link in links:
            parts = urlsplit(link)
            # Each still joins with its token (after `#`): the test checks real links.
            assert parse_qs(parts.fragment).get("token", [""])[0] in (GM_TOKEN, PLAYER_TOKEN)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            status, _, body = https_get(deployment, kind, path)
            assert status == 200, body[:200]
        # Every request is logged once it is served: wait for them all to be written.
        deadline = time.monotonic() + 10
        while (log.read_text(errors="replace").count("GET /?") < len(links)
               and time.monotonic() < deadline):
            time.sleep(0.02)
    logged = log.read_text(errors="replace")
    assert logged.count("GET /?") >= len(links), logged[-2000:]
    assert GM_TOKEN not in logged and PLAYER_TOKEN not in logged, logged[-2000:]
