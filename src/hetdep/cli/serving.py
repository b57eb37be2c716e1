"""The command that runs hetdep as an HTTP service: serve."""

from __future__ import annotations

import click

from hetdep import interrupts
from hetdep.cli.app import FiniteFloat
from hetdep.errors import HetdepError


@click.command("serve")
@click.option("--model", "models", multiple=True, metavar="NAME=DIR|MODEL", help="A model to serve under a name (NAME=DIR), or an installed model under its own name; repeat for several (the first is the default). Without it: every model shipped with hetdep (fr, the default, and en), each loaded at start.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8001, show_default=True, help="Port to listen on.")
@click.option("--workers", type=click.IntRange(1), default=2, show_default=True, help="Parses run at most this many at a time, in threads beside the server's event loop.")
@click.option("--max-bytes", type=click.IntRange(1), default=4 << 20, show_default=True, help="Largest request accepted, counted as it arrives (larger: 413); UDPipe 2's limit.")
@click.option("--max-words", type=click.IntRange(1), default=250, show_default=True, help="Longest sentence accepted, in words (longer: 413).")
@click.option("--timeout", type=FiniteFloat(min=0, min_open=True), default=60.0, show_default=True, help="Seconds one batch of a request's work (about 2,000 words) may take (longer: 503).")
@click.option("--max-queued", type=click.IntRange(1), default=1024, show_default=True, help="Units of work (a request's reading, each of its batches) that may wait for a thread (more: 503, the server is busy).")
@click.option("--precision", type=click.Choice(["int8", "float32"]), default=None, help="A neural model's arithmetic, as 'hetdep parse --precision' chooses it. In int8 the runtime quantizes each batch with a scale of its own, and the service parses small concurrent requests as one batch, so a sentence's tree may differ in a few words from request to request; float32 answers each sentence the same whatever is parsed beside it  [default: each model's own]")
def serve_command(models, host, port, workers, max_bytes, max_words, timeout, max_queued, precision):
    """Serve models over HTTP: UDPipe 2's REST interface (GET /models, GET or POST /process), POST
    /render for pictures of the trees, and a web page at / to type text and see both trees."""
    from hetdep.extras import require

    require("serve", "hetdep serve")
    import uvicorn

    from hetdep.models.names import find_model, shipped_models
    from hetdep.service.app import Limits, create_app

    named = {}
    for item in models or [model.name for model in shipped_models()]:
        name, sep, path = item.partition("=")
        if not sep:  # a model known by name
            name, path = item, str(find_model(item))
        if not name or not path:
            raise HetdepError(f"--model {item!r}: give NAME=DIR or an installed model's name")
        if name in named:
            raise HetdepError(f"--model: the name {name!r} is given twice")
        named[name] = path
    app = create_app(named, Limits(max_bytes=max_bytes, max_words=max_words, timeout=timeout, workers=workers,
                                   max_queued=max_queued), precision)
    click.echo(f"serving {', '.join(named)} at http://{host}:{port}/ (Ctrl-C stops)", err=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    except BaseException as error:  # Ctrl-C or SIGTERM, raised again by uvicorn once it has shut down
        if not interrupts.is_interrupt(error):
            raise
    interrupts.reset()  # a signal is how a service is meant to stop: exit 0, no "interrupted" line
    click.echo("hetdep: the service stopped", err=True)
