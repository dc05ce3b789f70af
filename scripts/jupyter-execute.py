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

Usage: python3 scripts/jupyter-execute.py --kernel deno --output-dir DIR [--timeout S] [--grace S] NB...
Exit status 0 when every notebook was executed (cells that raised are kept as error outputs), 1 otherwise.
"""
import argparse
import os
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionComplete


OUTPUTS = {"stream", "display_data", "update_display_data", "execute_result", "error", "clear_output"}


class LateOutputClient(NotebookClient):
    """nbclient's client, keeping each finished cell's late outputs (see the module comment)."""

    grace = 1.0
    late = 0

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

    async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
        result = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
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
        try:
            client.execute()
        except Exception as error:  # the kernel died, a cell timed out, ...
            print(f"{path}: {type(error).__name__}: {error}", file=sys.stderr)
            ok = False
        nb.metadata["late_outputs"] = client.late
        out = os.path.join(args.output_dir, os.path.basename(path))
        nbformat.write(nb, out)
        print(f"{path}: {client.late} outputs arrived after the kernel said idle -> {out}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
