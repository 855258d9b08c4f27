package io.ncclinspector.report.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;
import java.math.BigInteger;

/**
 * Decides whether one line is an Inspector record the import can use, and if not, says why in
 * words a user can act on. The rules are those of the import's SQL (see
 * {@code RecordSchema#VALIDITY}): a JSON object with a {@code header} (id, rank, n_ranks, nnodes),
 * and exactly one of {@code coll_perf} / {@code p2p_perf} with the operation name, sequence
 * number, message size, execution time and timing source. Everything else is optional.
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
        switch (name) {
          case "header" -> header = value == JsonToken.START_OBJECT ? header(p) : notObject(p, name);
          case "coll_perf" -> coll = value == JsonToken.START_OBJECT ? perf(p, "coll") : notObject(p, name);
          case "p2p_perf" -> p2p = value == JsonToken.START_OBJECT ? perf(p, "p2p") : notObject(p, name);
          default -> p.skipChildren();
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
      return "no header object";
    }
    if (header.problem() != null) {
      return header.problem();
    }
    if (coll.present() && p2p.present()) {
      return "both coll_perf and p2p_perf";
    }
    if (!coll.present() && !p2p.present()) {
      return "neither coll_perf nor p2p_perf (not an operation record)";
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
    boolean id = false;
    boolean rank = false;
    boolean ranks = false;
    boolean nodes = false;
    String problem = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      switch (name) {
        case "id" -> id = scalarText(v);
        case "rank" -> rank = integer(p, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
        case "n_ranks" -> ranks = integer(p, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
        case "nnodes" -> nodes = integer(p, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
        default -> { }
      }
      p.skipChildren();
    }
    if (!id) {
      problem = "header.id missing";
    } else if (!rank) {
      problem = "header.rank missing or not an integer";
    } else if (!ranks) {
      problem = "header.n_ranks missing or not an integer";
    } else if (!nodes) {
      problem = "header.nnodes missing or not an integer";
    }
    return problem == null ? Part.COMPLETE : Part.problem(problem);
  }

  private static Part perf(JsonParser p, String prefix) throws IOException {
    boolean op = false;
    boolean sn = false;
    boolean size = false;
    boolean time = false;
    boolean source = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if (name.equals(prefix)) {
        op = scalarText(v);
      } else if (name.equals(prefix + "_sn")) {
        sn = integer(p, v, Long.MIN_VALUE, Long.MAX_VALUE);
      } else if (name.equals(prefix + "_msg_size_bytes")) {
        size = hugeInteger(p, v);
      } else if (name.equals(prefix + "_exec_time_us")) {
        time = integer(p, v, Long.MIN_VALUE, Long.MAX_VALUE);
      } else if (name.equals(prefix + "_timing_source")) {
        source = scalarText(v);
      }
      p.skipChildren();
    }
    String where = prefix + "_perf.";
    if (!op) {
      return Part.problem(where + prefix + " (operation name) missing");
    }
    if (!sn) {
      return Part.problem(where + prefix + "_sn missing or not an integer");
    }
    if (!size) {
      return Part.problem(where + prefix + "_msg_size_bytes missing or not an integer");
    }
    if (!time) {
      return Part.problem(where + prefix + "_exec_time_us missing or not an integer");
    }
    if (!source) {
      return Part.problem(where + prefix + "_timing_source missing");
    }
    return Part.COMPLETE;
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
