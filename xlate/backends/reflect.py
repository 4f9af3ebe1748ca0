"""Reflection JSON: everything an engine must bind to run a translated program.

Schema (``"schema": "xlate-reflection/1"``; additions keep the version, changes bump it):

* ``stage``, ``dialect``, ``profile``, ``source``
* ``inputs`` / ``outputs``: ``{name, binding, type, location | null, builtin, interpolation}``
  ``binding`` is the original assembly binding (``vertex.attrib[3]``, ``result.color``).  In the
  glsl330 profile varyings have no location but ``block``: the interface block that carries
  them (``xl_varying5``, matched by name between stages; ``name`` is its instance name).
* ``uniforms``: ``{name, type, array_size, elements: {index: binding}}`` plus, in the vulkan
  profile, ``block``/``set``/``binding``/``offset`` (std140: every vec4 element is 16 bytes).
  ``location`` is null in glsl330 (no explicit uniform locations: look the name up).
* ``textures``: ``{unit, name, target, type, binding, set?}``
* ``buffers``: ``{name, binding_point, vec4_count, block, binding, set?}``
  In glsl330 the shader declares no ``binding``: it is the texture unit to assign to the sampler
  (``glUniform1i``) or the binding point of the block (``glUniformBlockBinding``).
* ``geometry``: input/output primitive, max vertices (geometry programs)
* ``compute``: ``{local_size: [x, y, z]}`` (compute programs)
* ``storage_buffers``: ``{resource, name, block, binding, set?}`` -- TGSI ``BUFFER[n]``, an
  std430 block of 32-bit words (``uint words[]``) at ``binding`` (n; Vulkan 64 + n); an atomic
  counter buffer (``HWATOMIC[b]``, counter i the word i) is one too, at binding 16 + b (Vulkan
  80 + b), with ``atomic_counter_buffer: b`` -- no profile uses GLSL atomic counters (Vulkan
  has none);
  ``shared_memory``: ``{resource, name, bytes}`` (``MEMORY[n], SHARED``, backends/glsl/memory.py);
  ``images``: ``{resource, name, target, format, access, binding, set?}`` (``IMAGE[n]``: image
  unit n, Vulkan binding 96 + n; ``format`` null for a write-only image without one)
* ``tessellation`` (tessellation programs): ``patch_vertices`` (the input vertices the program
  addresses; the engine's GL_PATCH_VERTICES must be at least this) and, for an evaluation
  program, ``primitive`` (triangles | quads | isolines), ``spacing`` (equal |
  fractional_odd | fractional_even), ``vertex_order`` (cw | ccw), ``point_mode``; for a control
  program ``vertices_out``.  Per-patch varyings have ``interpolation`` "patch".
* ``cg_vars``: cgc ``#var`` lines (high-level parameter name -> resource), when present.
* ``cg_name`` on an input, output, uniform or texture: the Cg name it was given (the ``#var``
  line that named it; ``name`` is the identifier made of it, ``backends/names.py``), when one
  did.  Built-ins keep their GLSL names and carry the Cg name here.
"""
from __future__ import annotations

from ..ir.model import COUNTER_BINDING_BASE, storage_label

SCHEMA = "xlate-reflection/1"


def reflection(em) -> dict:
    prog = em.prog
    out: dict = {
        "schema": SCHEMA,
        "stage": prog.stage.value,
        "dialect": prog.dialect,
        "profile": em.profile,
        "source": prog.source_name,
    }
    names = em.interface_names
    out["inputs"] = [_var(v, names.source.get(names.input(b))) for v, _, b in em.input_vars]
    out["outputs"] = [_var(v, names.source.get(names.output(b))) for v, _, b in em.output_vars]
    uniforms = []
    offset = 0
    for name, n in em.uniforms.items():
        elems = em.uniform_bindings.get(name, {})
        u = {"name": name, "type": "vec4", "array_size": n or None,
             "elements": {str(k) if k is not None else "0": v for k, v in sorted(
                 elems.items(), key=lambda kv: -1 if kv[0] is None else kv[0])}}
        if name in names.source:
            u["cg_name"] = names.source[name]
        if em.params_in_block:
            u.update(block="XlateParameters", binding=0 if em.vulkan else 16, offset=16 * offset)
            if em.vulkan:
                u["set"] = 0
        else:
            u.update(location=offset if em.info.layouts else None)
        offset += max(n, 1)
        uniforms.append(u)
    out["uniforms"] = uniforms
    out["textures"] = [
        {"unit": t.unit, "name": t.name, "target": t.target, "type": em.sampler_type(t),
         "binding": (1 + t.unit) if em.vulkan else t.unit, **({"set": 0} if em.vulkan else {}),
         **({"cg_name": names.source[t.name]} if t.name in names.source else {})}
        for t in sorted(em.textures.values(), key=lambda t: t.unit)]
    out["buffers"] = [
        {"name": f"buffer{b}", "binding_point": b, "vec4_count": n, "block": f"XlateBuffer{b}",
         "binding": (40 + b) if em.vulkan else b, **({"set": 0} if em.vulkan else {})}
        for b, n in sorted(em.buffers.items())]
    if prog.geometry:
        g = prog.geometry
        out["geometry"] = {"input_primitive": g.input_primitive, "output_primitive": g.output_primitive,
                           "max_vertices": g.vertices_out}
    if prog.local_size is not None:
        out["compute"] = {"local_size": list(prog.local_size)}
    if prog.resources:
        res = prog.resources.values()
        out["storage_buffers"] = [
            {"resource": storage_label(r.binding), "name": f"xl_storage{r.binding}",
             "block": f"XlateStorage{r.binding}", "binding": em.storage_binding(r.binding),
             **({"atomic_counter_buffer": r.binding - COUNTER_BINDING_BASE}
                if r.binding >= COUNTER_BINDING_BASE else {}),
             **({"set": 0} if em.vulkan else {})}
            for r in sorted(res, key=lambda r: r.binding) if r.kind == "buffer"]
        out["shared_memory"] = [
            {"resource": f"MEMORY[{r.binding}]", "name": f"xl_shared{r.binding}", "bytes": r.size}
            for r in sorted(res, key=lambda r: r.binding) if r.kind == "shared"]
        access = em.image_usage()
        out["images"] = [
            {"resource": f"IMAGE[{r.binding}]", "name": em.image_var(r), "target": r.target,
             "format": r.format, "access": {frozenset({"IMGLOAD"}): "read",
                                            frozenset({"IMGSTORE"}): "write"}.get(
                 frozenset(access.get(r.name, ())), "read-write"),
             "binding": em.image_binding(r.binding), **({"set": 0} if em.vulkan else {})}
            for r in sorted(res, key=lambda r: r.binding) if r.kind == "image"]
    if prog.tessellation:
        t = prog.tessellation
        tess: dict = {"patch_vertices": t.patch_vertices}
        if t.primitive is not None:
            tess.update(primitive="isolines" if t.primitive == "ISOLINES" else t.primitive.lower(),
                        spacing=t.spacing.lower(), vertex_order="cw" if t.vertex_order_cw else "ccw",
                        point_mode=t.point_mode)
        if t.vertices_out is not None:
            tess["vertices_out"] = t.vertices_out
        out["tessellation"] = tess
    if prog.vars:
        out["cg_vars"] = [{"type": v.type, "name": v.name, "semantic": v.semantic,
                           "resource": v.resource, "parameter": v.param_index,
                           "referenced": v.referenced} for v in prog.vars]
    return out


def _var(v, cg_name: str | None) -> dict:
    out = {"name": v.name, "binding": v.binding, "type": v.glsl_type, "location": v.location,
           "builtin": v.builtin, "interpolation": (v.interpolation or "smooth").lower()
           if v.direction == "in" and not v.builtin else None}
    if v.block:
        out["block"] = v.block
    if cg_name is not None:
        out["cg_name"] = cg_name
    return out
