"""The command that runs hetdep as an HTTP service: serve."""

from __future__ import annotations

import click

from hetdep.errors import HetdepError


@click.command("serve")
@click.option("--model", "models", multiple=True, required=True, metavar="NAME=DIR", help="A model to serve under a name; repeat for several (the first is the default).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8001, show_default=True, help="Port to listen on.")
@click.option("--workers", type=click.IntRange(1), default=2, show_default=True, help="Parses run at most this many at a time, in threads beside the server's event loop.")
@click.option("--max-bytes", type=click.IntRange(1), default=1 << 20, show_default=True, help="Largest request accepted (larger: 413).")
@click.option("--max-words", type=click.IntRange(1), default=250, show_default=True, help="Longest sentence accepted, in words (longer: 413).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True, help="Seconds a request may parse (longer: 503).")
def serve_command(models, host, port, workers, max_bytes, max_words, timeout):
    """Serve models over HTTP: UDPipe 2's REST interface (GET /models, POST /process), POST /render
    for pictures of the trees, and a web page at / to type text and see both trees."""
    import uvicorn

    from hetdep.service.app import Limits, create_app

    named = {}
    for item in models:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise HetdepError(f"--model {item!r}: give NAME=DIR")
        if name in named:
            raise HetdepError(f"--model: the name {name!r} is given twice")
        named[name] = path
    app = create_app(named, Limits(max_bytes=max_bytes, max_words=max_words, timeout=timeout, workers=workers))
    click.echo(f"serving {', '.join(named)} at http://{host}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
