package io.ncclinspector.format;

import java.util.ArrayList;
import java.util.List;

/**
 * A record line: one JSON object with {@code header} ({@link HeaderField}), {@code metadata}
 * ({@link MetadataField}) and either {@code coll_perf} or {@code p2p_perf} ({@link PerfField}).
 */
public final class RecordFormat {
  private RecordFormat() {}

  /** The top-level objects of a record of this kind, in the writer's order. */
  public static List<String> objects(RecordKind kind) {
    return List.of(HeaderField.OBJECT, MetadataField.OBJECT, kind.perfObject());
  }

  /** Every field a record of this kind may have, object by object, in the writer's order. */
  public static List<RecordField> fields(RecordKind kind) {
    List<RecordField> all = new ArrayList<>(List.of(HeaderField.values()));
    all.addAll(List.of(MetadataField.values()));
    all.addAll(PerfField.of(kind));
    return List.copyOf(all);
  }

  /** The fields of a top-level object ({@code header}, {@code metadata}, {@code coll_perf}, {@code p2p_perf}). */
  public static List<RecordField> fieldsOf(String object) {
    if (object.equals(HeaderField.OBJECT)) {
      return List.<RecordField>of(HeaderField.values());
    }
    if (object.equals(MetadataField.OBJECT)) {
      return List.<RecordField>of(MetadataField.values());
    }
    for (RecordKind k : RecordKind.values()) {
      if (object.equals(k.perfObject())) {
        return List.copyOf(PerfField.of(k));
      }
    }
    throw new IllegalArgumentException("no such object in a record line: " + object);
  }
}
