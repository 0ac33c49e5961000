# SPDX-License-Identifier: GPL-2.0-or-later
"""A .cats container taken apart and put together again (docs/FORMAT.md),
for tests that change one part of a real trace: the sections' raw
payloads, STRINGS, and EVENTS records, with the format's variable-length
numbers. Every section is written compressed and under its CRC, as the
helper writes it, so that a change reaches the decoders."""
import struct
import zlib

VERSION = 7
HEADER = 16
ENTRY = 40               # a section table entry
ENTRY_FMT = "<IIQQQII"   # type, flags, offset, stored, raw size, CRC-32, reserved


def table_end(data):
    """The offset just past the section table."""
    return HEADER + ENTRY * struct.unpack_from("<I", data, 12)[0]


def entries(data):
    """(type, flags, offset, stored, raw, crc, reserved) of each section."""
    n = struct.unpack_from("<I", data, 12)[0]
    return [struct.unpack_from(ENTRY_FMT, data, HEADER + ENTRY * i) for i in range(n)]


def sections(data):
    """[type, raw payload] of each section, in table order."""
    out = []
    for ty, fl, off, stored, _raw, _crc, _res in entries(data):
        body = data[off:off + stored]
        out.append([ty, zlib.decompress(body) if fl & 1 else body])
    return out


def container(secs):
    """A container of (type, raw payload) pairs."""
    head = b"CATSTRC\0" + struct.pack("<II", VERSION, len(secs))
    off = HEADER + ENTRY * len(secs)
    table, data = b"", b""
    for ty, raw in secs:
        z = zlib.compress(raw, 1)
        table += struct.pack(ENTRY_FMT, ty, 1, off + len(data), len(z), len(raw), zlib.crc32(raw), 0)
        data += z
    return head + table + data


def strings(raw):
    n = struct.unpack_from("<I", raw, 0)[0]
    out, o = [], 4
    for _ in range(n):
        ln = struct.unpack_from("<I", raw, o)[0]
        out.append(raw[o + 4:o + 4 + ln])
        o += 4 + ln
    return out


def pack_strings(strs):
    return struct.pack("<I", len(strs)) + b"".join(struct.pack("<I", len(s)) + s for s in strs)


def get_uvar(b, o):
    v = s = 0
    while True:
        x = b[o]
        o += 1
        v |= (x & 0x7F) << s
        s += 7
        if not x & 0x80:
            return v, o


def get_svar(b, o):
    v, o = get_uvar(b, o)
    return (v >> 1) ^ -(v & 1), o


def put_uvar(v):
    out = b""
    while True:
        x = v & 0x7F
        v >>= 7
        out += bytes([x | (0x80 if v else 0)])
        if not v:
            return out


def put_svar(v):
    return put_uvar((v << 1) ^ (v >> 63) if v < 0 else v << 1)


_U, _B, _S = "u", "b", "s"
_HEAD = (("ctx", _U), ("loc", _U), ("alloc", _U), ("kind", _B), ("pattern", _B), ("ndims", _B),
         ("flags", _B), ("size", _U), ("ndistinct", _U), ("count", _U), ("first", _U),
         ("span", _U), ("base", _S))


def events(raw):
    """EVENTS records (docs/FORMAT.md) as dicts."""
    n = struct.unpack_from("<I", raw, 0)[0]
    o, out = 4, []
    for _ in range(n):
        e = {}
        for name, kind in _HEAD:
            if kind == _B:
                e[name], o = raw[o], o + 1
            else:
                e[name], o = (get_uvar if kind == _U else get_svar)(raw, o)
        e["dims"] = []
        for _ in range(e["ndims"]):
            st, o = get_svar(raw, o)
            ex, o = get_uvar(raw, o)
            e["dims"].append((st, ex))
        e["min"], o = get_svar(raw, o)
        e["max"], o = get_svar(raw, o)
        e["distinct"] = []
        for _ in range(e["ndistinct"]):
            d, o = get_svar(raw, o)
            e["distinct"].append(d)
        e["mask"], o = get_uvar(raw, o)
        e["hist"] = []
        for k in range(16):
            if e["mask"] >> k & 1:
                h, o = get_uvar(raw, o)
                e["hist"].append(h)
        out.append(e)
    return out


def pack_events(evs):
    out = struct.pack("<I", len(evs))
    for e in evs:
        for name, kind in _HEAD:
            out += bytes([e[name]]) if kind == _B else (put_uvar if kind == _U else put_svar)(e[name])
        for st, ex in e["dims"]:
            out += put_svar(st) + put_uvar(ex)
        out += put_svar(e["min"]) + put_svar(e["max"])
        out += b"".join(put_svar(d) for d in e["distinct"])
        out += put_uvar(e["mask"]) + b"".join(put_uvar(h) for h in e["hist"])
    return out
