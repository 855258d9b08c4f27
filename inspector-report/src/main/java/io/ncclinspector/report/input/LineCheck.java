package io.ncclinspector.report.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.MetadataField;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.report.ingest.JsonLayout;
import io.ncclinspector.report.ingest.RecordSchema;
import java.io.IOException;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
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
 * <p>Every field the record format knows ({@link JsonLayout#PARTS}), required or not, must hold a
 * value of its own JSON type, as the import's SQL checks ({@link JsonLayout.Reading}): text a JSON
 * string, an integer a JSON integer (no fraction, no exponent, not a string, not a boolean) within
 * the field's range, a floating-point value a finite JSON number, a flag list an array of strings,
 * a trace object an object. JSON null is the same as an absent field. {@code NaN} and {@code
 * Infinity}, which some writers produce and the engines' readers take, are parsed so that the
 * field can be named, and refused.
 */
public final class LineCheck {
  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
  private static final BigInteger HUGEINT_MAX = BigInteger.ONE.shiftLeft(127).subtract(
      BigInteger.ONE);
  private static final BigInteger HUGEINT_MIN = BigInteger.ONE.shiftLeft(127).negate();
  /** The fields of each object of a line, by object name and field name. */
  private static final Map<String, Map<String, JsonLayout.Type>> FIELDS = fields();
  private static final Set<String> REQUIRED_HEADER = names(RecordSchema.REQUIRED_HEADER,
      RecordKind.COLL);
  private static final Set<String> OPERATION_NAMES = Set.of(
      PerfField.OPERATION.jsonName(RecordKind.COLL), PerfField.OPERATION.jsonName(RecordKind.P2P));

  private LineCheck() {}

  private static Map<String, Map<String, JsonLayout.Type>> fields() {
    Map<String, Map<String, JsonLayout.Type>> m = new HashMap<>();
    for (JsonLayout.Part p : JsonLayout.PARTS) {
      Map<String, JsonLayout.Type> f = new HashMap<>();
      p.fields().forEach(x -> f.put(x.name(), x.type()));
      m.put(p.name(), f);
    }
    return m;
  }

  private static Set<String> names(List<? extends RecordField> fields, RecordKind kind) {
    Set<String> s = new LinkedHashSet<>();
    fields.forEach(f -> s.add(f.jsonName(kind)));
    return s;
  }

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
      Part metadata = Part.ABSENT;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals(HeaderField.OBJECT)) {
          header = value == JsonToken.START_OBJECT
              ? object(p, name, REQUIRED_HEADER) : notObject(p, name);
        } else if (name.equals(RecordKind.COLL.perfObject())) {
          coll = value == JsonToken.START_OBJECT ? perf(p, RecordKind.COLL) : notObject(p, name);
        } else if (name.equals(RecordKind.P2P.perfObject())) {
          p2p = value == JsonToken.START_OBJECT ? perf(p, RecordKind.P2P) : notObject(p, name);
        } else if (name.equals(MetadataField.OBJECT) && value == JsonToken.START_OBJECT) {
          metadata = object(p, name, Set.of());
        } else {
          p.skipChildren(); // a metadata that is not an object is read as absent, as the engines do
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
      return verdict(header, coll, p2p, metadata);
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

  private static String verdict(Part header, Part coll, Part p2p, Part metadata) {
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
    String perf = coll.present() ? coll.problem() : p2p.problem();
    return perf != null ? perf : metadata.problem();
  }

  private static Part notObject(JsonParser p, String name) throws IOException {
    if (p.currentToken() == JsonToken.VALUE_NULL) {
      return Part.ABSENT;
    }
    p.skipChildren();
    return Part.problem(name + " is not an object");
  }

  private static Part perf(JsonParser p, RecordKind kind) throws IOException {
    return object(p, kind.perfObject(), names(RecordSchema.REQUIRED_PERF, kind));
  }

  /**
   * Reads an object's fields: the first field of the wrong type, else the first required one
   * missing, is the problem.
   */
  private static Part object(JsonParser p, String object, Set<String> required) throws IOException {
    Map<String, JsonLayout.Type> known = FIELDS.get(object);
    Set<String> found = new HashSet<>();
    String wrong = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      JsonLayout.Type type = known.get(name);
      if (type != null && v != JsonToken.VALUE_NULL) {
        String problem = typeProblem(p, v, type);
        if (problem == null) {
          found.add(name);
        } else if (wrong == null) {
          wrong = object + "." + name + " " + problem;
        }
      }
      p.skipChildren();
    }
    if (wrong != null) {
      return Part.problem(wrong);
    }
    for (String f : required) {
      if (!found.contains(f)) {
        return Part.problem(object + "." + f + (OPERATION_NAMES.contains(f)
            ? " (operation name) missing" : " missing"));
      }
    }
    return Part.COMPLETE;
  }

  /** Null if the value is of the field's JSON type (and range), else what is wrong with it. */
  private static String typeProblem(JsonParser p, JsonToken v, JsonLayout.Type type)
      throws IOException {
    return switch (type) {
      case TEXT -> v == JsonToken.VALUE_STRING ? null : "is not a string";
      case INT -> integer(p, v, BigInteger.valueOf(Integer.MIN_VALUE),
          BigInteger.valueOf(Integer.MAX_VALUE), "32");
      case BIGINT -> integer(p, v, BigInteger.valueOf(Long.MIN_VALUE),
          BigInteger.valueOf(Long.MAX_VALUE), "64");
      case HUGE -> integer(p, v, HUGEINT_MIN, HUGEINT_MAX, "128");
      case DOUBLE -> (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT)
          && Double.isFinite(p.getDoubleValue()) ? null : "is not a finite number";
      case BOOLEAN -> v == JsonToken.VALUE_TRUE || v == JsonToken.VALUE_FALSE ? null
          : "is not true or false";
      case TEXT_LIST -> stringList(p, v) ? null : "is not a list of strings";
      case JSON -> v == JsonToken.START_OBJECT ? null : "is not an object";
    };
  }

  private static String integer(JsonParser p, JsonToken v, BigInteger min, BigInteger max,
      String bits) throws IOException {
    if (v != JsonToken.VALUE_NUMBER_INT) {
      return "is not an integer";
    }
    BigInteger value = p.getBigIntegerValue();
    return value.compareTo(min) >= 0 && value.compareTo(max) <= 0 ? null
        : "is out of the range of a signed " + bits + "-bit integer";
  }

  /** Whether the value is an array of strings (it consumes the array). */
  private static boolean stringList(JsonParser p, JsonToken v) throws IOException {
    if (v != JsonToken.START_ARRAY) {
      return false;
    }
    boolean strings = true;
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.VALUE_STRING) {
        strings = false;
        p.skipChildren();
      }
    }
    return strings;
  }
}
