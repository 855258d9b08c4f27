/* The layout of driver_event exported by field name, so that Java (the trace reader that packs
 * events and the player that scans them) looks every field up and checks its width once, at load,
 * instead of writing the offsets down a second time. */
#include <stddef.h>

#include "profiler_table_driver.h"

typedef struct driver_layout_entry {
  const char* name;
  int offset;
  int size;
} driver_layout_entry;

#define DRIVER(f) {"driver." #f, (int)offsetof(driver_event, f), (int)sizeof(((driver_event*)0)->f)}
#define CONSTANT(name, value) {name, (int)(value), 0}

static const driver_layout_entry layout[] = {
    DRIVER(op), DRIVER(n_channels), DRIVER(n_warps), DRIVER(channel_id), DRIVER(type), DRIVER(ctx),
    DRIVER(handle), DRIVER(parent), DRIVER(parent_group), DRIVER(rank), DRIVER(peer_or_root),
    DRIVER(t_mono), DRIVER(t_wall), DRIVER(a), DRIVER(count), DRIVER(func), DRIVER(datatype),
    DRIVER(algo), DRIVER(proto), DRIVER(state), DRIVER(nnodes), DRIVER(nranks), DRIVER(i0),
    DRIVER(i1), DRIVER(i2), DRIVER(i3), DRIVER(graph_captured), DRIVER(tid),
    CONSTANT("driver_event_bytes", sizeof(driver_event)), CONSTANT("driver_max_id", DRIVER_MAX_ID),
    CONSTANT("driver_op_init", DRIVER_OP_INIT), CONSTANT("driver_op_start", DRIVER_OP_START),
    CONSTANT("driver_op_stop", DRIVER_OP_STOP), CONSTANT("driver_op_state", DRIVER_OP_STATE),
    CONSTANT("driver_op_fini", DRIVER_OP_FINI),
};

_Static_assert(sizeof(layout) / sizeof(layout[0]) < 256, "a small table");
_Static_assert(sizeof(driver_event) % 8 == 0, "packed events stay 8-byte aligned in an array");

int profiler_driver_layout_count(void) { return (int)(sizeof(layout) / sizeof(layout[0])); }

const char* profiler_driver_layout_name(int i) {
  return (i < 0 || i >= profiler_driver_layout_count()) ? NULL : layout[i].name;
}

int profiler_driver_layout_offset(int i) {
  return (i < 0 || i >= profiler_driver_layout_count()) ? -1 : layout[i].offset;
}

int profiler_driver_layout_size(int i) {
  return (i < 0 || i >= profiler_driver_layout_count()) ? -1 : layout[i].size;
}
