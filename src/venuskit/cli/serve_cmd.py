"""`venus serve`: serve an in-process model behind the OpenAI chat-completions wire format."""

from __future__ import annotations

from pathlib import Path

import typer

from venuskit.cli.common import fail, port_option, serve_until_ctrl_c

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False)


@app.command("nano")
def serve_nano(
    port: int = port_option(8000),
    checkpoint: Path | None = typer.Option(None, "--checkpoint", help="A venus-nano checkpoint (default: shipped)."),
) -> None:
    """Serve venus-nano at http://127.0.0.1:PORT/v1 (`/v1/models`, `/v1/chat/completions`) until Ctrl-C."""
    from venuskit.models.nano import CheckpointError, NanoModel, load_default

    try:
        model = NanoModel.load(checkpoint) if checkpoint else load_default()
    except CheckpointError as exc:
        fail(str(exc))
    _serve_until_ctrl_c(model, port, "venus-nano")


@app.command("judge")
def serve_judge(
    port: int = port_option(8001),
    weights: Path | None = typer.Option(None, "--weights", help="A judge checkpoint (default: the shipped one)."),
) -> None:
    """Serve the nano keypoint judge at http://127.0.0.1:PORT/v1 until Ctrl-C (for `--judges ocr,log,nano
    --nano-url URL`, `venus verify steps --nano-url URL`, or any client of the wire format)."""
    from venuskit.models.judge import JudgeError, JudgeModel

    try:
        model = JudgeModel.load(weights) if weights else JudgeModel.load()
    except JudgeError as exc:
        fail(str(exc))
    _serve_until_ctrl_c(model, port, "venus-judge")


def _serve_until_ctrl_c(model, port: int, label: str) -> None:
    """Serve `model` behind the OpenAI wire format on 127.0.0.1:PORT until Ctrl-C, then stop the server cleanly."""
    from venuskit.models.serve import ChatServer

    try:
        server = ChatServer(model, port=port).start()
    except OSError as exc:
        fail(f"Cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}. Pick another --port.")
    banner = f"{label} at {server.base_url} (model name: {model.name}); Ctrl-C stops it."
    serve_until_ctrl_c(lambda: typer.echo(banner), server.stop)
