"""Reading a binary glTF 2.0 file (.glb): its JSON document, its binary
chunk, and the accessors that point into it. Pure Python (no pxr), so the
reader can be tested on its own; glb_to_usd.py turns what it reads into a
USD stage.

The layout (glTF 2.0, section "GLB File Format Specification"): a 12-byte
header (magic "glTF", version 2, total length), then chunks of (length,
type, data): first the JSON chunk, then optionally one BIN chunk, which is
the document's buffer 0 when that buffer has no uri.
"""
import array
import base64
import json
import struct
import sys

from .failures import Refusal

MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942

# Accessor component types: glTF's code -> (array typecode, bytes).
COMPONENTS = {
    5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4),
}
# Accessor element types -> components per element.
WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}

# Primitive modes (glTF 2.0 "mesh.primitive.mode").
POINTS, LINES, LINE_LOOP, LINE_STRIP, TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN = range(7)
MODE_NAMES = ["POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"]


class Glb:
    """A parsed .glb: doc is the JSON document, buffers the bytes of each
    buffer (the BIN chunk, or a base64 data: URI)."""

    def __init__(self, path, doc, buffers):
        self.path, self.doc, self.buffers = path, doc, buffers

    def list(self, key):
        return self.doc.get(key) or []

    def accessor(self, index):
        """The accessor's elements as one flat array of numbers (count x
        width of them), sparse substitutions applied."""
        accessors = self.list("accessors")
        if not 0 <= index < len(accessors):
            raise Refusal("%s: accessor %d does not exist (the file has %d)" % (self.path, index, len(accessors)))
        acc = accessors[index]
        kind, width = acc.get("componentType"), WIDTHS.get(acc.get("type"))
        if kind not in COMPONENTS or width is None:
            raise Refusal("%s: accessor %d has componentType %s and type %s, which glTF 2.0 does not define"
                          % (self.path, index, kind, acc.get("type")))
        count = int(acc.get("count", 0))
        if "bufferView" in acc:
            values = self._read(acc["bufferView"], acc.get("byteOffset", 0), kind, count * width, width,
                                "accessor %d" % index)
        else:
            values = array.array(COMPONENTS[kind][0], bytes(count * width * COMPONENTS[kind][1]))
        sparse = acc.get("sparse")
        if sparse:
            self._apply_sparse(index, sparse, values, kind, width)
        return values

    def _read(self, view_index, offset, kind, n, width, what):
        """n numbers of component type kind from a buffer view, width to an
        element, honouring the view's byteStride."""
        views = self.list("bufferViews")
        if not 0 <= view_index < len(views):
            raise Refusal("%s: %s names bufferView %d, which does not exist" % (self.path, what, view_index))
        view = views[view_index]
        buf_index = view.get("buffer", 0)
        if not 0 <= buf_index < len(self.buffers) or self.buffers[buf_index] is None:
            raise Refusal("%s: %s reads buffer %d, which is not inside the file (an external .bin is not read: "
                          "pack the glTF as one .glb)" % (self.path, what, buf_index))
        data = self.buffers[buf_index]
        code, size = COMPONENTS[kind]
        start = view.get("byteOffset", 0) + offset
        elem = size * width
        stride = view.get("byteStride") or elem
        count = n // width if width else 0
        end = start + (count - 1) * stride + elem if count else start
        view_end = view.get("byteOffset", 0) + view.get("byteLength", 0)
        if end > min(len(data), view_end):
            raise Refusal("%s: %s runs past the end of its buffer view (%d bytes needed, %d there)"
                          % (self.path, what, end, min(len(data), view_end)))
        if stride == elem:
            out = array.array(code, data[start:start + n * size])
        else:
            out = array.array(code)
            for i in range(count):
                at = start + i * stride
                out.frombytes(data[at:at + elem])
        if sys.byteorder == "big":
            out.byteswap()
        return out

    def _apply_sparse(self, index, sparse, values, kind, width):
        n = int(sparse.get("count", 0))
        idx, vals = sparse.get("indices", {}), sparse.get("values", {})
        positions = self._read(idx.get("bufferView", -1), idx.get("byteOffset", 0), idx.get("componentType"), n, 1,
                               "accessor %d's sparse indices" % index)
        subst = self._read(vals.get("bufferView", -1), vals.get("byteOffset", 0), kind, n * width, width,
                           "accessor %d's sparse values" % index)
        for k, at in enumerate(positions):
            values[at * width:(at + 1) * width] = subst[k * width:(k + 1) * width]


def read(path):
    """Parses the .glb at path; a file that is not one is refused, saying
    what was found instead."""
    with open(path, "rb") as f:
        body = f.read()
    if len(body) < 20 or body[:4] != MAGIC:
        hint = " (it looks like a text .gltf: convert it to .glb)" if body.lstrip()[:1] == b"{" else ""
        raise Refusal("%s is not a binary glTF file: it does not start with the bytes \"glTF\"%s" % (path, hint))
    version, length = struct.unpack_from("<II", body, 4)
    if version != 2:
        raise Refusal("%s is glTF version %d; only glTF 2.0 is read" % (path, version))
    if length > len(body):
        raise Refusal("%s is cut short: its header says %d bytes, the file has %d" % (path, length, len(body)))
    doc, bin_chunk, at = None, None, 12
    while at + 8 <= length:
        size, kind = struct.unpack_from("<II", body, at)
        data = body[at + 8:at + 8 + size]
        if len(data) < size:
            raise Refusal("%s is cut short inside a chunk" % path)
        if kind == CHUNK_JSON and doc is None:
            try:
                doc = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                raise Refusal("%s: the JSON chunk does not parse: %s" % (path, e))
        elif kind == CHUNK_BIN and bin_chunk is None:
            bin_chunk = data
        at += 8 + size
    if not isinstance(doc, dict):
        raise Refusal("%s has no JSON chunk" % path)
    version = str((doc.get("asset") or {}).get("version", ""))
    if not version.startswith("2."):
        raise Refusal("%s says asset.version %r; only glTF 2.x is read" % (path, version))
    buffers = []
    for i, b in enumerate(doc.get("buffers") or []):
        uri = b.get("uri")
        if uri is None:
            buffers.append(bin_chunk if i == 0 else None)
        elif uri.startswith("data:") and ";base64," in uri:
            buffers.append(base64.b64decode(uri.split(";base64,", 1)[1]))
        else:
            buffers.append(None)  # an external file: refused when read
    return Glb(path, doc, buffers)


def triangles(mode, indices):
    """The triangles (flat vertex indices, three to a triangle) a primitive
    of mode draws from indices; None for a mode that draws no faces."""
    if mode == TRIANGLES:
        return list(indices[:len(indices) - len(indices) % 3])
    out = []
    if mode == TRIANGLE_STRIP:
        for i in range(len(indices) - 2):
            a, b, c = indices[i], indices[i + 1], indices[i + 2]
            out.extend((a, b, c) if i % 2 == 0 else (b, a, c))
    elif mode == TRIANGLE_FAN:
        for i in range(1, len(indices) - 1):
            out.extend((indices[0], indices[i], indices[i + 1]))
    else:
        return None
    return out
