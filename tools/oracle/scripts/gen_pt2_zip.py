"""Zip containers written by PyTorch 2.14's PyTorchStreamWriter (torch._C.PyTorchFileWriter), for the
ZipWriter/ZipReader tests (tests/test_serde_zip.cpp). Usage:
  tools/oracle/run tools/oracle/scripts/gen_pt2_zip.py [OUT_DIR]   (default tests/fixtures/pt2/zip)
Per case, OUT_DIR/<case>.ops.txt lists what was written, in order, one record a line:
  options <storage_alignment> <compute_crc32 0|1>     (first line)
  data <name> <hex bytes or '-' when empty>            write_record
  meta <name> <size>                                   write_record_metadata (no data written, crc 0)
including the records PyTorch adds on write_end_of_file (version, byteorder, .data/serialization_id).
Names are the full zip names (root folder included). Small cases are saved whole as <case>.zip; the
zip64 case (an 8 GiB archive made of metadata-only records) is captured through a file-like sink as
<case>.sparse.txt: 'size <total bytes>' then 'at <offset> <hex>' for every run of written bytes
(everything else is a hole of zeros).
Also, for the reader, archives written by Python's zipfile (what torch <= 2.7's torch.export.save used):
pyzip_legacy (stored, no root folder, no data descriptors), pyzip_zip64 (force_zip64: zip64 sizes in the
local headers only) and pyzip_deflate (a deflated entry, which PT2 readers must refuse), each with
<case>.ops.txt ('options 1 1' then its data records)."""
import os
import sys

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/pt2/zip"
os.makedirs(OUT, exist_ok=True)


class Sink:
    """File-like object for PyTorchFileWriter(buffer): keeps the bytes written and where."""

    def __init__(self):
        self.pos, self.runs = 0, []

    def write(self, b):
        b = bytes(b)
        if self.runs and self.runs[-1][0] + len(self.runs[-1][1]) == self.pos:
            self.runs[-1][1] += b
        else:
            self.runs.append([self.pos, bytearray(b)])
        self.pos += len(b)
        return len(b)

    def seek(self, n, whence=0):
        self.pos = self.pos + n if whence == 1 else n
        return self.pos

    def tell(self):
        return self.pos

    def flush(self):
        pass


def run_case(name, records, alignment=64, crc=True, sparse=False):
    # Records: (record_name, bytes) or (record_name, int size) for metadata-only.
    if sparse:
        sink = Sink()
        w = torch._C.PyTorchFileWriter(sink, crc, alignment)
    else:
        path = os.path.join(OUT, name + ".zip")
        w = torch._C.PyTorchFileWriter(path, crc, alignment)
    root = w.archive_name()
    for rec, payload in records:
        if isinstance(payload, int):
            w.write_record_metadata(rec, payload)
        else:
            w.write_record(rec, payload, len(payload))
    before = set(w.get_all_written_records())
    w.write_end_of_file()
    # PyTorch adds these on write_end_of_file, in this order, when absent.
    tail = [r for r in ("version", ".data/version", "byteorder", ".data/serialization_id")
            if r in set(w.get_all_written_records()) - before]
    lines = ["options %d %d" % (alignment, int(crc))]
    for rec, payload in records:
        if isinstance(payload, int):
            lines.append("meta %s/%s %d" % (root, rec, payload))
        else:
            lines.append("data %s/%s %s" % (root, rec, payload.hex() or "-"))
    if sparse:
        data = {}
        for off, b in sink.runs:
            data[off] = bytes(b)
        total = sink.pos
    else:
        with open(path, "rb") as fh:
            blob = fh.read()
        total = len(blob)
    # The tail records' bytes: read back with zipfile for whole files; from the sink runs otherwise.
    import zipfile
    if not sparse:  # raw bytes at each entry's data offset (zipfile.read would check the crc)
        with zipfile.ZipFile(path) as z:
            for rec in tail:
                info = z.getinfo("%s/%s" % (root, rec))
                n = int.from_bytes(blob[info.header_offset + 26:info.header_offset + 28], "little")
                m = int.from_bytes(blob[info.header_offset + 28:info.header_offset + 30], "little")
                start = info.header_offset + 30 + n + m
                lines.append("data %s/%s %s" % (root, rec, blob[start:start + info.file_size].hex()))
    else:
        tail_vals = {"version": None, ".data/version": None, "byteorder": b"little",
                     ".data/serialization_id": w.serialization_id().encode()}
        for rec in tail:
            v = tail_vals[rec]
            if v is None:  # the version text: find it after its local header name in the runs
                key = ("%s/%s" % (root, rec)).encode()
                for off, b in sink.runs:
                    i = bytes(b).find(b"PK\x03\x04")
                    while i >= 0:
                        n = int.from_bytes(b[i + 26:i + 28], "little")
                        m = int.from_bytes(b[i + 28:i + 30], "little")
                        if bytes(b[i + 30:i + 30 + n]) == key:
                            v = bytes(b[i + 30 + n + m:i + 30 + n + m + 2])
                        i = bytes(b).find(b"PK\x03\x04", i + 1)
            lines.append("data %s/%s %s" % (root, rec, v.hex()))
        with open(os.path.join(OUT, name + ".sparse.txt"), "w") as fh:
            fh.write("size %d\n" % total)
            for off, b in sink.runs:
                fh.write("at %d %s\n" % (off, bytes(b).hex()))
    with open(os.path.join(OUT, name + ".ops.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


small = [("a", b"0123456789"), ("empty", b""), ("three", b"abc"), ("data/0", bytes(range(200))),
         ("x" * 70, b"name longer than the alignment"), ("meta_only", 100)]
run_case("align64", small)
run_case("align100", small, alignment=100)
run_case("align4096", small, alignment=4096)
run_case("align1", small, alignment=1)
run_case("nocrc", small, crc=False)
# zip64: a record of 4 GiB + 100 bytes (size >= 0xFFFFFFFF) pushes the later local headers past 4 GiB;
# 'exact' is exactly 0xFFFFFFFF bytes (miniz's threshold is >=).
run_case("zip64", [("a", b"0123456789"), ("big", (1 << 32) + 100), ("c", b"hello"), ("empty", b""),
                   ("exact", 0xFFFFFFFF), ("d", b"xy")], sparse=True)


def python_zip(name, records, compression=0, force_zip64=False):
    import zipfile
    path = os.path.join(OUT, name + ".zip")
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        for rec, payload in records:
            info = zipfile.ZipInfo(rec, date_time=(2024, 9, 4, 12, 0, 0))  # fixed: reproducible bytes
            info.compress_type = compression
            with z.open(info, "w", force_zip64=force_zip64) as fh:
                fh.write(payload)
    with open(os.path.join(OUT, name + ".ops.txt"), "w") as fh:
        fh.write("options 1 1\n" + "".join("data %s %s\n" % (r, p.hex() or "-") for r, p in records))


legacy = [("serialized_exported_program.json", b'{"graph_module": {}}'), ("serialized_state_dict.pt", bytes(range(64))),
          ("version", b"8.7"), ("extra_files/note", b""), ("extra_files/\u00e9t\u00e9.txt", "\u00e9".encode())]
python_zip("pyzip_legacy", legacy)
python_zip("pyzip_zip64", legacy, force_zip64=True)
python_zip("pyzip_deflate", [("archive/data.pkl", b"x" * 1000)], compression=8)
print(sorted(os.listdir(OUT)))
