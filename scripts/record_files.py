"""Opening committed record files, plain or gzip-compressed (the Python side of model/line_reader.h).

Large measurement files are stored as NAME.jsonl.gz, byte-identical to what the run wrote once decompressed; a path
given as NAME.jsonl (a README command, a profile's provenance) reads NAME.jsonl.gz where NAME.jsonl is not stored.
"""
import gzip
import json
import os


def stored_path(path):
    """path where it exists, else path + '.gz' where that exists, else path (so that errors name what was asked)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return path + ".gz"
    return path


def check_appendable(path):
    """Raises ValueError where appending records to path would corrupt a compressed file (path ends in .gz) or hide
    one from readers (path is not stored but path.gz is), as lcab's RecordWriter refuses them."""
    if path.endswith(".gz"):
        raise ValueError(f"cannot append records to the compressed file '{path}': write to a new .jsonl file")
    if stored_path(path) != path:
        raise ValueError(f"'{path}' is stored compressed as '{path}.gz': write to a new .jsonl file "
                         "(or decompress it first)")


def open_text(path):
    """A text file object for stored_path(path), decompressing when the file starts with gzip's magic bytes."""
    path = stored_path(path)
    with open(path, "rb") as f:
        compressed = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt") if compressed else open(path)


def read_records(path):
    """The JSON objects of a JSON Lines file, blank lines skipped, with their 1-based line numbers."""
    with open_text(path) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                yield number, json.loads(line)
