"""Executes notebooks through Jupyter (jupyter_client + nbclient, the kernel over ZMQ), like
`jupyter nbconvert --to notebook --execute --allow-errors`, but keeps the outputs a kernel sends after
it said the cell was done.

Why: Deno's kernel (2.9) publishes a cell's `status: idle` before some of the cell's own outputs
(its execute_result and displays go out from the JavaScript thread, idle from the server thread, with a
5 ms pause between; a large message takes longer). nbclient, and so nbconvert, stop listening at idle and
drop what comes after: measured, a cell that is just `42` lost its result 2 times in 8. Here every
message is routed to the cell whose request it answers (its parent id), whenever it arrives: during a
later cell, or in the `--grace` seconds after the last cell. The count of such late outputs is written to
the notebook's metadata (`late_outputs`), so a test can say how often the kernel did it.

Second, what a cell prints: Deno's kernel queues printed text and publishes it as the child of the
*latest* execute request when its stdio task gets to it, so the tail of a cell's output can be tagged
as the next cell's (measured: after a cell printing 3,000 lines, the next cell got 1,100 of them; in CI
a two-line cell's output once moved whole). So after every code cell this script sends a fence, an
unrecorded request that prints a unique marker, and waits for that marker before the next cell: the
queue is first in, first out, so text tagged with the fence's request before its marker is the
previous cell's and goes back there (`reattributed_streams` in the metadata counts it). The fence is
`console.log` (the kernel is JavaScript/TypeScript); `--no-fence` turns it off for other kernels.

Usage: python3 scripts/jupyter-execute.py --kernel deno --output-dir DIR [--timeout S] [--grace S] [--no-fence] NB...
Exit status 0 when every notebook was executed (cells that raised are kept as error outputs), 1 otherwise.
"""
import argparse
import json
import os
import sys
import time
import uuid
from queue import Empty

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionComplete
from nbclient.util import ensure_async


OUTPUTS = {"stream", "display_data", "update_display_data", "execute_result", "error", "clear_output"}


class LateOutputClient(NotebookClient):
    """nbclient's client, keeping each finished cell's late outputs (see the module comment)."""

    grace = 1.0
    late = 0
    fence = True
    reattributed = 0

    def finished(self):
        if not hasattr(self, "_finished"):
            self._finished = {}
        return self._finished

    def take_late(self, msg):
        cell, index = self.finished()[msg["parent_header"]["msg_id"]]
        if msg["msg_type"] in OUTPUTS:
            self.late += 1
        try:
            self.process_message(msg, cell, index)
        except CellExecutionComplete:
            pass

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        assert self.kc is not None
        while True:
            msg = await self.kc.iopub_channel.get_msg(timeout=None)
            parent = msg["parent_header"].get("msg_id")
            if parent == parent_msg_id:
                try:
                    self.process_message(msg, cell, cell_index)
                except CellExecutionComplete:
                    self.finished()[parent] = (cell, cell_index)
                    return
            elif parent in self.finished():
                self.take_late(msg)

    async def run_fence(self, cell, cell_index):
        """Sends the fence after `cell` and gives the cell back the text the kernel tagged as the fence's
        before its marker (see the module comment)."""
        marker = f"--jupyter-execute-fence-{uuid.uuid4().hex}--"
        fence_id = await ensure_async(self.kc.execute(f"console.log({json.dumps(marker)})", silent=False, store_history=False, allow_stdin=False))
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                msg = await self.kc.iopub_channel.get_msg(timeout=max(0.0, deadline - time.monotonic()))
            except Empty:
                raise TimeoutError(f"the kernel did not print the fence after cell {cell_index} within {self.timeout} s") from None
            parent = msg["parent_header"].get("msg_id")
            if parent in self.finished():
                self.take_late(msg)
            elif parent == fence_id and msg["msg_type"] == "stream":
                text = msg["content"]["text"]
                before, found, _ = text.partition(marker)
                if before:
                    self.reattributed += 1
                    moved = {**msg, "content": {**msg["content"], "text": before}}
                    try:
                        self.process_message(moved, cell, cell_index)
                    except CellExecutionComplete:
                        pass
                if found:
                    return
            # Anything else of the fence's (busy, its input, idle, its reply) is not the notebook's.

    async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
        result = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
        if self.fence and cell.cell_type == "code" and cell.source.strip():
            await self.run_fence(cell, cell_index)
        if cell_index == len(self.nb.cells) - 1:
            # After the last cell: what is still on its way, until the kernel is quiet for `grace` s.
            while True:
                try:
                    msg = await self.kc.iopub_channel.get_msg(timeout=self.grace)
                except Exception:  # queue.Empty
                    break
                if msg["parent_header"].get("msg_id") in self.finished():
                    self.take_late(msg)
        return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--timeout", type=int, default=180)
    parser.add_argument("--grace", type=float, default=1.0)
    parser.add_argument("--no-fence", dest="fence", action="store_false", help="no fence after each cell (a kernel without console.log)")
    parser.add_argument("notebooks", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.output_dir, exist_ok=True)
    ok = True
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        client = LateOutputClient(
            nb,
            kernel_name=args.kernel,
            timeout=args.timeout,
            allow_errors=True,
            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
        )
        client.grace = args.grace
        client.fence = args.fence
        try:
            client.execute()
        except Exception as error:  # the kernel died, a cell timed out, ...
            print(f"{path}: {type(error).__name__}: {error}", file=sys.stderr)
            ok = False
        nb.metadata["late_outputs"] = client.late
        nb.metadata["reattributed_streams"] = client.reattributed
        out = os.path.join(args.output_dir, os.path.basename(path))
        nbformat.write(nb, out)
        print(f"{path}: {client.late} outputs arrived after the kernel said idle, {client.reattributed} printed texts were tagged as a later request's -> {out}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
