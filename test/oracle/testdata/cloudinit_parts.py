"""Reads user data with the installed cloud-init, as it does at boot.

Input (stdin): a JSON list of documents, each base64-encoded; output: a
JSON list of results, one a document, in order.

cloudinit.user_data.UserDataProcessor processes the blob (gzip, MIME,
nested multiparts, gzip parts, content-type sniffing), then
cloudinit.handlers.walk hands every part to a callback with the arguments
cloud-init's part handlers get. This gives each part as the
handlers see it: content type, filename, headers and payload (base64 of
its bytes; a str payload is encoded back with UTF-8 and surrogateescape,
the inverse of cloud-init's decoding), whether cloud-init can write it
(UTF-8, as util.write_file does), and the warnings cloud-init logged.

Nothing is fetched: #include URLs are refused and listed under "fetched".
Run with Debian's /usr/bin/python3 (cloud-init's modules).
"""

import base64
import json
import logging
import sys
import tempfile

from cloudinit import handlers, helpers, user_data


class _Warnings(logging.Handler):
    """Collects the warnings cloud-init logs."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _refuse_fetch(fetched):
    def read_file_or_url(url, *args, **kwargs):
        fetched.append(url)
        raise IOError("the oracle fetches nothing: " + url)

    return read_file_or_url


def _as_bytes(payload):
    if payload is None:
        return b"", True
    if isinstance(payload, bytes):
        return payload, True
    try:
        payload.encode("utf-8")
        writable = True
    except UnicodeEncodeError:
        writable = False
    return payload.encode("utf-8", "surrogateescape"), writable


def read(blob, paths):
    """The parts cloud-init's handlers get from blob, and what it logged."""
    warnings = _Warnings()
    root = logging.getLogger()
    root.addHandler(warnings)
    fetched = []
    user_data.read_file_or_url = _refuse_fetch(fetched)
    parts = []

    def callback(_data, filename, payload, headers):
        body, writable = _as_bytes(payload)
        parts.append(
            {
                "content_type": headers["Content-Type"],
                "filename": filename,
                "headers": {k: str(v) for k, v in headers.items()},
                "payload": base64.b64encode(body).decode("ascii"),
                "writable": writable,
            }
        )

    try:
        msg = user_data.UserDataProcessor(paths).process(blob)
        handlers.walk(msg, callback, {})
    except Exception as e:  # cloud-init fails the boot stage on these
        return {"error": "%s: %s" % (type(e).__name__, e), "fetched": fetched}
    finally:
        root.removeHandler(warnings)
    return {"parts": parts, "fetched": fetched, "warnings": warnings.messages}


def main():
    blobs = [base64.b64decode(b) for b in json.load(sys.stdin)]
    logging.getLogger().setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        paths = helpers.Paths({"cloud_dir": tmp, "run_dir": tmp})
        results = [read(blob, paths) for blob in blobs]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
