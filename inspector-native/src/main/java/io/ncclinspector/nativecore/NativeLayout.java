package io.ncclinspector.nativecore;

import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

/**
 * A layout table a native library exports by name (the core's {@code record_format.c}, the table
 * driver's {@code driver_layout.c}): entry i has a name, a byte offset and a size, 0 for a
 * constant whose value is the offset. Java looks every field it reads up here and checks its
 * width once, at load, so that no offset is written down a second time; a library from another
 * build that lacks a field or changed its width fails here, loudly.
 */
public final class NativeLayout {
  private final String library;
  private final Map<String, int[]> entries;

  private NativeLayout(String library, Map<String, int[]> entries) {
    this.library = library;
    this.entries = entries;
  }

  /** Reads a table through its count, name, offset and size functions. */
  public static NativeLayout read(String library, int count, IntFunction<String> name, IntUnaryOperator offset,
      IntUnaryOperator size) {
    Map<String, int[]> entries = new HashMap<>();
    for (int i = 0; i < count; i++) {
      entries.put(name.apply(i), new int[] {offset.applyAsInt(i), size.applyAsInt(i)});
    }
    return new NativeLayout(library, Map.copyOf(entries));
  }

  /** The core's table: records, in-flight entries and raw recorded events. */
  public static NativeLayout core() {
    return read("the native core", InspectorNative.layoutCount(), InspectorNative::layoutName,
        InspectorNative::layoutOffset, InspectorNative::layoutSize);
  }

  /**
   * The offset of a field read {@code width} bytes wide ({@code -1}: any width, e.g. a text
   * array).
   */
  public int field(String name, int width) {
    int[] f = entries.get(name);
    if (f == null || f[1] == 0) {
      throw new IllegalStateException(library + " has no field '" + name
          + "': the jar and the native library come from different builds");
    }
    if (width >= 0 && f[1] != width) {
      throw new IllegalStateException(library + " field '" + name + "' is " + f[1] + " bytes wide, this jar reads "
          + width + ": the jar and the native library come from different builds");
    }
    return f[0];
  }

  /** The size in bytes of a field. */
  public int size(String name) {
    field(name, -1);
    return entries.get(name)[1];
  }

  /** The value of a constant. */
  public int constant(String name) {
    int[] f = entries.get(name);
    if (f == null || f[1] != 0) {
      throw new IllegalStateException(library + " has no layout constant '" + name
          + "': the jar and the native library come from different builds");
    }
    return f[0];
  }
}
