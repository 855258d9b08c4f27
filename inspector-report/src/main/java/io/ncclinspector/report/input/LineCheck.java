package io.ncclinspector.report.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import io.ncclinspector.format.FieldType;
import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.report.ingest.RecordSchema;
import java.io.IOException;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether one line is an Inspector record the import can use, and if not, says why in
 * words a user can act on. The rules are those of the import's SQL (see
 * {@link RecordSchema#VALIDITY}): a JSON object with a {@code header} with the fields of
 * {@link RecordSchema#REQUIRED_HEADER} (id, rank, n_ranks, nnodes), and exactly one of {@code
 * coll_perf} / {@code p2p_perf} with those of {@link RecordSchema#REQUIRED_PERF} (operation name,
 * sequence number, message size, execution time, timing source). Everything else is optional.
 *
 * <p>Scalars are accepted where DuckDB's reader converts them: numbers and numeric strings for
 * integers (within the column's range), any scalar for text.
 */
public final class LineCheck {
  private static final JsonFactory JSON = new JsonFactory();
  private static final BigInteger HUGEINT_MAX = BigInteger.ONE.shiftLeft(127).subtract(
      BigInteger.ONE);
  private static final BigInteger HUGEINT_MIN = BigInteger.ONE.shiftLeft(127).negate();

  private LineCheck() {}

  /** Null when the line is a usable record, else the reason it is not. */
  public static String check(LineReader.Line line) {
    if (line.tooLong()) {
      return "line longer than " + (LineReader.MAX_LINE_BYTES >> 20) + " MiB";
    }
    try (JsonParser p = JSON.createParser(line.bytes(), line.offset(), line.length())) {
      JsonToken first = p.nextToken();
      if (first != JsonToken.START_OBJECT) {
        return "not a JSON object";
      }
      Part header = Part.ABSENT;
      Part coll = Part.ABSENT;
      Part p2p = Part.ABSENT;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals(HeaderField.OBJECT)) {
          header = value == JsonToken.START_OBJECT ? header(p) : notObject(p, name);
        } else if (name.equals(RecordKind.COLL.perfObject())) {
          coll = value == JsonToken.START_OBJECT ? perf(p, RecordKind.COLL) : notObject(p, name);
        } else if (name.equals(RecordKind.P2P.perfObject())) {
          p2p = value == JsonToken.START_OBJECT ? perf(p, RecordKind.P2P) : notObject(p, name);
        } else {
          p.skipChildren();
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT) {
        return "not a JSON object";
      }
      try {
        if (p.nextToken() != null) {
          return "text after the JSON object";
        }
      } catch (JsonParseException e) {
        return "text after the JSON object";
      }
      return verdict(header, coll, p2p);
    } catch (JsonEOFException e) {
      return line.lastWithoutNewline() ? "truncated last line (JSON ends early)"
          : "truncated line (JSON ends early)";
    } catch (JsonParseException e) {
      return "not valid JSON: " + e.getOriginalMessage() + " at column "
          + (e.getLocation() == null ? "?" : e.getLocation().getColumnNr());
    } catch (IOException e) {
      return "not valid JSON: " + e.getMessage();
    }
  }

  /**
   * What the line held for one of its parts: absent (or JSON null, which the reader treats the
   * same), present and complete, or present with a problem.
   */
  private record Part(boolean present, String problem) {
    static final Part ABSENT = new Part(false, null);
    static final Part COMPLETE = new Part(true, null);

    static Part problem(String problem) {
      return new Part(true, problem);
    }
  }

  private static String verdict(Part header, Part coll, Part p2p) {
    if (!header.present()) {
      return "no " + HeaderField.OBJECT + " object";
    }
    if (header.problem() != null) {
      return header.problem();
    }
    if (coll.present() && p2p.present()) {
      return "both " + RecordKind.COLL.perfObject() + " and " + RecordKind.P2P.perfObject();
    }
    if (!coll.present() && !p2p.present()) {
      return "neither " + RecordKind.COLL.perfObject() + " nor " + RecordKind.P2P.perfObject()
          + " (not an operation record)";
    }
    return coll.present() ? coll.problem() : p2p.problem();
  }

  private static Part notObject(JsonParser p, String name) throws IOException {
    if (p.currentToken() == JsonToken.VALUE_NULL) {
      return Part.ABSENT;
    }
    p.skipChildren();
    return Part.problem(name + " is not an object");
  }

  private static Part header(JsonParser p) throws IOException {
    return required(p, RecordKind.COLL, RecordSchema.REQUIRED_HEADER);
  }

  private static Part perf(JsonParser p, RecordKind kind) throws IOException {
    return required(p, kind, RecordSchema.REQUIRED_PERF);
  }

  /** Reads an object's fields; the first required one missing or of the wrong type is the problem. */
  private static Part required(JsonParser p, RecordKind kind, List<? extends RecordField> fields)
      throws IOException {
    Map<String, RecordField> wanted = new HashMap<>();
    for (RecordField f : fields) {
      wanted.put(f.jsonName(kind), f);
    }
    Set<RecordField> found = new HashSet<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      RecordField f = wanted.get(p.currentName());
      JsonToken v = p.nextToken();
      if (f != null && readable(p, v, f.type())) {
        found.add(f);
      }
      p.skipChildren();
    }
    for (RecordField f : fields) {
      if (!found.contains(f)) {
        String name = f.objectName(kind) + "." + f.jsonName(kind);
        return Part.problem(name + (f == PerfField.OPERATION ? " (operation name) missing"
            : f.type() == FieldType.STRING ? " missing" : " missing or not an integer"));
      }
    }
    return Part.COMPLETE;
  }

  /** Whether the reader would read the value as a field of this type. */
  private static boolean readable(JsonParser p, JsonToken v, FieldType type) throws IOException {
    return switch (type) {
      case STRING -> scalarText(v);
      case INT -> integer(p, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
      case LONG -> integer(p, v, Long.MIN_VALUE, Long.MAX_VALUE);
      case UNSIGNED_LONG -> hugeInteger(p, v);
      default -> throw new IllegalArgumentException("not a required field's type: " + type);
    };
  }

  private static boolean scalarText(JsonToken v) {
    return v != null && v.isScalarValue() && v != JsonToken.VALUE_NULL;
  }

  private static boolean integer(JsonParser p, JsonToken v, long min, long max)
      throws IOException {
    BigInteger value = integerValue(p, v);
    return value != null && value.compareTo(BigInteger.valueOf(min)) >= 0
        && value.compareTo(BigInteger.valueOf(max)) <= 0;
  }

  private static boolean hugeInteger(JsonParser p, JsonToken v) throws IOException {
    BigInteger value = integerValue(p, v);
    return value != null && value.compareTo(HUGEINT_MIN) >= 0 && value.compareTo(HUGEINT_MAX) <= 0;
  }

  private static BigInteger integerValue(JsonParser p, JsonToken v) throws IOException {
    switch (v) {
      case VALUE_NUMBER_INT:
        return p.getBigIntegerValue();
      case VALUE_NUMBER_FLOAT: {
        double d = p.getDoubleValue();
        // The reader rounds a fractional number into an integer column.
        return Double.isFinite(d) ? java.math.BigDecimal.valueOf(d)
            .setScale(0, java.math.RoundingMode.HALF_EVEN).toBigInteger() : null;
      }
      case VALUE_STRING:
        try {
          return new BigInteger(p.getText().trim());
        } catch (NumberFormatException e) {
          return null;
        }
      default:
        return null;
    }
  }
}
