package io.ncclinspector.report.input;

import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.report.ingest.JsonLayout;
import io.ncclinspector.report.ingest.RecordSchema;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A fast, conservative screen of a whole log file: it passes the file only if every line is a
 * usable record (the rules of {@link LineCheck}) written in the plain form both producers write,
 * so that DuckDB's typed reader gives for it exactly what the import's checked reading gives
 * ({@link JsonLayout.Reading#TYPED} against {@link JsonLayout.Reading#JSON_TEXT}), at about two
 * thirds of the cost. Whatever it does not recognise fails the file, which is then read the
 * checked way: it may send a good file the slow way, never a bad one the fast way.
 *
 * <p>Passed are lines of one JSON object, ending at a newline (or at the end of the file), of
 * the four known objects ({@code header}, {@code metadata}, {@code coll_perf}, {@code p2p_perf}),
 * each at most once and with known fields only, each at most once, with the required fields, and
 * exactly one perf object. Each field holds a value of its own JSON type: a string (well-formed
 * UTF-8; every escape but {@code \\u0000} and halves of surrogate pairs), an integer without
 * fraction or exponent in its type's range (message sizes up to 2^64 - 1, where DuckDB's reader
 * still reads integers exactly), a
 * number with an exponent of at most two digits, {@code true} or {@code false}, a list of strings,
 * an object (any JSON, nested at most {@value #MAX_DEPTH} deep). Spaces and tabs may stand
 * between tokens. Refused, among others: JSON {@code null} (read as absent by the checked
 * reading, not worth a second rule here), blank lines, carriage returns, byte-order marks, lines
 * longer than the buffer ({@value #BUFFER_BYTES} bytes).
 *
 * <p>Not thread-safe: one instance per thread; {@link #passes} may be called again for the next
 * file. It allocates nothing per line.
 */
public final class LineScreen {
  static final int BUFFER_BYTES = 4 << 20;
  static final int MAX_DEPTH = 32;
  /**
   * Room behind the sentinel for the eight-byte reads: a scan stops at the sentinel at the
   * latest, but the word that holds it may reach up to seven bytes past it.
   */
  private static final int SLACK = 16;
  /** Eight bytes of the buffer at once, the first in the low bits. */
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;

  private static final int HEADER = 0;
  private static final int METADATA = 1;
  private static final int COLL = 2;
  private static final int P2P = 3;
  private static final byte[][] PART_NAMES = new byte[JsonLayout.PARTS.size()][];
  private static final Part[] PARTS = new Part[JsonLayout.PARTS.size()];

  static {
    for (int i = 0; i < PARTS.length; i++) {
      JsonLayout.Part p = JsonLayout.PARTS.get(i);
      PART_NAMES[i] = p.name().getBytes(StandardCharsets.US_ASCII);
      List<RecordField> required = switch (i) {
        case HEADER -> List.copyOf(RecordSchema.REQUIRED_HEADER);
        case COLL, P2P -> List.copyOf(RecordSchema.REQUIRED_PERF);
        default -> List.of();
      };
      RecordKind kind = i == P2P ? RecordKind.P2P : RecordKind.COLL;
      PARTS[i] = new Part(p, required.stream().map(f -> f.jsonName(kind)).toList());
    }
    if (!JsonLayout.PARTS.get(HEADER).name().equals("header")
        || !JsonLayout.PARTS.get(COLL).name().equals(RecordKind.COLL.perfObject())
        || !JsonLayout.PARTS.get(P2P).name().equals(RecordKind.P2P.perfObject())) {
      throw new IllegalStateException("the record layout's objects moved: " + JsonLayout.PARTS);
    }
  }

  /** The value kinds the screen checks, one per {@link JsonLayout.Type}. */
  private static final byte TEXT = 0;
  private static final byte INT = 1;
  private static final byte BIGINT = 2;
  private static final byte HUGE = 3;
  private static final byte DOUBLE = 4;
  private static final byte BOOLEAN = 5;
  private static final byte TEXT_LIST = 6;
  private static final byte JSON = 7;

  private static byte kind(JsonLayout.Type t) {
    return switch (t) {
      case TEXT -> TEXT;
      case INT -> INT;
      case BIGINT -> BIGINT;
      case HUGE -> HUGE;
      case DOUBLE -> DOUBLE;
      case BOOLEAN -> BOOLEAN;
      case TEXT_LIST -> TEXT_LIST;
      case JSON -> JSON;
    };
  }

  /** One object's fields: names, kinds, the required ones as a mask, and a lookup by name. */
  private static final class Part {
    final byte[][] names;
    /** Each field as {@code object.field}, for {@link #fieldsSeen}. */
    final String[] keys;
    /** Each name with its closing quote, eight bytes to a word, the last word's unused bytes 0. */
    final long[][] quoted;
    /** The mask of each name's last word's used bytes. */
    final long[] lastMask;
    final byte[] kinds;
    final long required;
    final short[] table;
    final int mask;

    Part(JsonLayout.Part p, List<String> requiredNames) {
      int n = p.fields().size();
      if (n > 64) {
        throw new IllegalStateException(p.name() + " has more than 64 fields");
      }
      names = new byte[n][];
      keys = new String[n];
      quoted = new long[n][];
      lastMask = new long[n];
      kinds = new byte[n];
      long req = 0;
      for (int i = 0; i < n; i++) {
        JsonLayout.Field f = p.fields().get(i);
        names[i] = f.name().getBytes(StandardCharsets.US_ASCII);
        keys[i] = p.name() + "." + f.name();
        quoted[i] = words(names[i]);
        int tail = names[i].length + 1 - 8 * (quoted[i].length - 1);
        lastMask[i] = tail == 8 ? -1L : (1L << (8 * tail)) - 1;
        kinds[i] = kind(f.type());
        if (requiredNames.contains(f.name())) {
          req |= 1L << i;
        }
      }
      required = req;
      int size = Integer.highestOneBit(n * 4 - 1) << 1;
      table = new short[size];
      Arrays.fill(table, (short) -1);
      mask = size - 1;
      for (int i = 0; i < n; i++) {
        int h = hash(names[i], 0, names[i].length) & mask;
        while (table[h] >= 0) {
          h = (h + 1) & mask;
        }
        table[h] = (short) i;
      }
    }

    /** The field named by b[from, to), or -1. */
    int find(byte[] b, int from, int to) {
      int h = hash(b, from, to) & mask;
      for (int i = table[h]; i >= 0; h = (h + 1) & mask, i = table[h]) {
        if (equal(b, from, to, names[i])) {
          return i;
        }
      }
      return -1;
    }
  }

  /** The name and its closing quote as little-endian words, the last one padded with 0. */
  private static long[] words(byte[] name) {
    byte[] q = Arrays.copyOf(name, name.length + 1);
    q[name.length] = '"';
    long[] w = new long[(q.length + 7) / 8];
    for (int i = 0; i < q.length; i++) {
      w[i / 8] |= (q[i] & 0xFFL) << (8 * (i % 8));
    }
    return w;
  }

  /**
   * Whether b holds at p the name and closing quote of which {@code words} are the words (the
   * last one's used bytes {@code lastMask}), compared eight bytes at a time. Bytes past the data
   * are read but cannot match: the sentinel at the data's end is no name's byte and no quote.
   */
  private static boolean quotedAt(byte[] b, int p, long[] words, long lastMask) {
    int last = words.length - 1;
    for (int i = 0; i < last; i++) {
      if ((long) LONG.get(b, p + 8 * i) != words[i]) {
        return false;
      }
    }
    return ((long) LONG.get(b, p + 8 * last) & lastMask) == words[last];
  }

  private static int hash(byte[] b, int from, int to) {
    int len = to - from;
    if (len == 0) {
      return 0;
    }
    return (len * 31 + b[from]) * 31 + b[to - 1] * 7 + b[from + len / 2];
  }

  private static boolean equal(byte[] b, int from, int to, byte[] name) {
    return to - from == name.length && Arrays.equals(b, from, to, name, 0, name.length);
  }

  private final int capacity;
  private final byte[] buf;
  /** The end of the data in {@link #buf} (where the sentinel is), and whether it ends the input. */
  private int limit;
  private boolean eof;
  private long lines;
  /**
   * Per object, the field that came after each field (index + 1; [0]: the first) on the last
   * line that had it: the next key is compared with it first, the lookup by name only when it
   * is another. Learned, so that any writer's order is fast after its first line.
   */
  private final int[][] follows = new int[PARTS.length][];
  /** Per object, the fields that the objects passed since the last {@link #passes} held. */
  private final long[] present = new long[PARTS.length];
  /** Objects passed by their likeness to a template (for the tests: that the path is taken). */
  long matched;
  /** Per object, the last one the full reading passed: the next is first compared with it. */
  private final ObjectTemplate[] templates = new ObjectTemplate[PARTS.length];
  private final Spans spans = new Spans();

  /** A screen for whole files, whose lines may be up to {@value #BUFFER_BYTES} bytes long. */
  public LineScreen() {
    this(BUFFER_BYTES);
  }

  /**
   * A screen whose buffer holds {@code capacity} bytes: longer lines are not passed (for {@link
   * #passesLine}, a small buffer serves).
   */
  public LineScreen(int capacity) {
    this.capacity = capacity;
    this.buf = new byte[capacity + 1 + SLACK];
    for (int i = 0; i < PARTS.length; i++) {
      templates[i] = new ObjectTemplate();
      follows[i] = new int[PARTS[i].names.length + 1];
      for (int f = 0; f <= PARTS[i].names.length; f++) {
        follows[i][f] = Math.min(f, PARTS[i].names.length - 1);
      }
    }
  }

  /**
   * The fields that the lines of the last {@link #passes} call held, each as {@code
   * object.field} (for {@link #passesLine}: those of every line passed since): when the file
   * passed, its every line holds only these. The import declares to DuckDB's typed reader only
   * the fields its files hold, which then costs less; the reader takes a field it was not told
   * of for absent, so the set must be complete, and it is: every field of every object passed
   * is in it.
   */
  public Set<String> fieldsSeen() {
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < PARTS.length; i++) {
      for (long m = present[i]; m != 0; m &= m - 1) {
        out.add(PARTS[i].keys[Long.numberOfTrailingZeros(m)]);
      }
    }
    return out;
  }

  /** Lines passed by the last {@link #passes} call (all of the file's when it passed). */
  public long lines() {
    return lines;
  }

  /**
   * Whether every line of the stream passes. Reads up to the first line that does not (the rest
   * of the stream is left unread) or to the end; does not close the stream.
   */
  public boolean passes(InputStream in) throws IOException {
    lines = 0;
    Arrays.fill(present, 0);
    limit = 0;
    eof = false;
    int start = 0;
    while (true) {
      while (!eof && limit < capacity) {
        int n = in.read(buf, limit, capacity - limit);
        if (n < 0) {
          eof = true;
        } else {
          limit += n;
        }
      }
      buf[limit] = 0; // a sentinel no token takes: every scan stops at the data's end
      int p = start;
      while (p < limit) {
        int next = line(p);
        if (next < 0) {
          if (eof || indexOfNewline(p) >= 0) {
            return false;
          }
          break; // the line goes on past the buffer's data
        }
        lines++;
        p = next;
      }
      if (eof) {
        return true;
      }
      if (p == 0) {
        return false; // one line fills the whole buffer
      }
      System.arraycopy(buf, p, buf, 0, limit - p);
      limit -= p;
      start = 0;
    }
  }

  /**
   * Whether the screen passes one line, given without its newline (on a copy of it: the line
   * may end anywhere in {@code bytes}). Whatever it passes, {@link LineCheck} accepts: a caller
   * that needs only the verdict may skip the line check for it.
   */
  public boolean passesLine(byte[] bytes, int offset, int length) {
    if (length > capacity) {
      return false;
    }
    System.arraycopy(bytes, offset, buf, 0, length);
    buf[length] = 0;
    limit = length;
    eof = true;
    return line(0) == length;
  }

  private int indexOfNewline(int from) {
    for (int i = from; i < limit; i++) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private static int ws(byte[] b, int p) {
    if (b[p] > ' ') {
      return p; // the common case: no whitespace
    }
    while (b[p] == ' ' || b[p] == '\t') {
      p++;
    }
    return p;
  }

  /** The position after the line that starts at p (after its newline), or -1. */
  private int line(int p) {
    byte[] b = buf;
    if (b[p] != '{') {
      return -1;
    }
    p = ws(b, p + 1);
    int seen = 0;
    while (true) {
      if (b[p] != '"') {
        return -1;
      }
      int ke = keyEnd(b, p + 1);
      if (ke < 0) {
        return -1;
      }
      int part = topPart(b, p + 1, ke);
      if (part < 0 || (seen & (1 << part)) != 0) {
        return -1;
      }
      seen |= 1 << part;
      p = ws(b, ke + 1);
      if (b[p] != ':') {
        return -1;
      }
      p = ws(b, p + 1);
      if (b[p] != '{') {
        return -1;
      }
      p = object(b, part, p + 1);
      if (p < 0) {
        return -1;
      }
      p = ws(b, p);
      if (b[p] == ',') {
        p = ws(b, p + 1);
      } else if (b[p] == '}') {
        p++;
        break;
      } else {
        return -1;
      }
    }
    int perf = seen & ((1 << COLL) | (1 << P2P));
    if ((seen & (1 << HEADER)) == 0 || perf == 0 || perf == ((1 << COLL) | (1 << P2P))) {
      return -1;
    }
    if (b[p] == '\n') {
      return p + 1;
    }
    return p == limit && eof ? p : -1;
  }

  private static int topPart(byte[] b, int from, int to) {
    for (int i = 0; i < PART_NAMES.length; i++) {
      if (equal(b, from, to, PART_NAMES[i])) {
        return i;
      }
    }
    return -1;
  }

  /** The closing quote of a key that starts at p (printable ASCII, no escape), or -1. */
  private static int keyEnd(byte[] b, int p) {
    while (true) {
      byte c = b[p];
      if (c == '"') {
        return p;
      }
      if (c < 0x20 || c == '\\') { // negative: not ASCII
        return -1;
      }
      p++;
    }
  }

  /**
   * The fields of object {@code index} after its opening brace; the position after its closing
   * brace, or -1. Adds the fields of an object passed to {@link #present}.
   */
  private int object(byte[] b, int index, int p) {
    ObjectTemplate template = templates[index];
    int end = template.match(b, p, limit);
    if (end >= 0) {
      matched++;
      present[index] |= template.seen;
      return end;
    }
    int start = p;
    spans.values = 0;
    Part part = PARTS[index];
    int[] follows = this.follows[index];
    p = ws(b, p);
    long seen = 0;
    int previous = 0; // follows' index of the field before: 0 at the object's start
    if (b[p] == '}') {
      return part.required == 0 ? p + 1 : -1;
    }
    while (true) {
      if (b[p] != '"') {
        return -1;
      }
      int f;
      int ke;
      int guess = follows[previous];
      if (quotedAt(b, p + 1, part.quoted[guess], part.lastMask[guess])) {
        f = guess; // each writer keeps its fields' order: most keys are the one expected
        ke = p + 1 + part.names[guess].length;
      } else {
        ke = keyEnd(b, p + 1);
        if (ke < 0) {
          return -1;
        }
        f = part.find(b, p + 1, ke);
        if (f >= 0) {
          follows[previous] = f;
        }
      }
      if (f < 0 || (seen & (1L << f)) != 0) {
        return -1;
      }
      seen |= 1L << f;
      previous = f + 1;
      p = ws(b, ke + 1);
      if (b[p] != ':') {
        return -1;
      }
      int from = ws(b, p + 1);
      p = value(b, part.kinds[f], from);
      if (p < 0) {
        return -1;
      }
      spans.add(from - start, p - start, part.kinds[f]);
      p = ws(b, p);
      if (b[p] == ',') {
        p = ws(b, p + 1);
      } else if (b[p] == '}') {
        if ((seen & part.required) != part.required) {
          return -1;
        }
        present[index] |= seen;
        template.keep(b, start, p + 1, seen, spans);
        return p + 1;
      } else {
        return -1;
      }
    }
  }

  /**
   * The text of the last object of one kind that the full reading passed, from after its opening
   * brace to after its closing one, and where each of its values lies. A writer repeats its
   * keys, their order and its spacing on every line, and most values too: an object whose bytes
   * equal the template's except inside values passes when each differing value passes as its
   * field's kind. That is the full reading's verdict: up to a value, the bytes and so the
   * reading's state are the template's; the value is read by the same rule at the same place;
   * after it, equal bytes are read alike (the reading of a token looks at no byte past the
   * first one that ends it, and the template ends where the object's reading stops). A
   * difference anywhere else (a key, a separator, spacing) is left to the full reading, which
   * then makes the object the template. Fixed size: nothing allocated per line.
   */
  private static final class ObjectTemplate {
    /** Longer objects are read in full every time. */
    static final int MAX_BYTES = 4096;
    final byte[] text = new byte[MAX_BYTES];
    /** Bytes of {@link #text} in use; 0: none passed yet. */
    int length;
    /** Where its values lie. */
    final Spans spans = new Spans();
    long seen;

    /**
     * The object just passed, at b[start, end), with its fields and its values as {@code read}
     * recorded them: the template from now on.
     */
    void keep(byte[] b, int start, int end, long fields, Spans read) {
      if (end - start <= MAX_BYTES) {
        System.arraycopy(b, start, text, 0, end - start);
        spans.copy(read);
        length = end - start;
        seen = fields;
      }
    }

    /**
     * The position after the object whose fields start at p if it passes as above, or -1 (the
     * full reading decides). {@code limit}: the end of the data, where the buffer holds a byte
     * no template has (0), so the comparison stops there at the latest.
     */
    int match(byte[] b, int p, int limit) {
      if (length == 0) {
        return -1;
      }
      int[] from = spans.from;
      int[] to = spans.to;
      int values = spans.values;
      int t = 0; // where in the template
      int v = 0; // the next value that may differ
      while (true) {
        int end = Math.min(p + length - t, limit + 1);
        int m = Arrays.mismatch(text, t, length, b, p, end);
        if (m < 0) {
          return end; // the rest is the template's
        }
        int at = t + m;
        while (v < values && to[v] < at) {
          v++;
        }
        if (v == values || from[v] > at) {
          return -1; // outside a value
        }
        int start = p + from[v] - t;
        int after = LineScreen.value(b, spans.kinds[v], start);
        if (after < 0) {
          return -1;
        }
        p = after;
        t = to[v];
        v++; // a difference right after this value is not in it: the next must be in a later one
      }
    }
  }

  /** Where the values of an object lie, from its start, and their kinds. */
  private static final class Spans {
    final int[] from = new int[64];
    final int[] to = new int[64];
    final byte[] kinds = new byte[64];
    int values;

    void add(int start, int end, byte kind) {
      from[values] = start;
      to[values] = end;
      kinds[values] = kind;
      values++;
    }

    void copy(Spans other) {
      System.arraycopy(other.from, 0, from, 0, other.values);
      System.arraycopy(other.to, 0, to, 0, other.values);
      System.arraycopy(other.kinds, 0, kinds, 0, other.values);
      values = other.values;
    }
  }

  /** A field's value of the given kind at p; the position after it, or -1. */
  private static int value(byte[] b, byte kind, int p) {
    switch (kind) {
      case TEXT:
        return b[p] == '"' ? string(b, p + 1) : -1;
      case INT:
      case BIGINT:
      case HUGE:
        return integer(b, p, kind);
      case DOUBLE:
        return number(b, p);
      case BOOLEAN:
        int t = literal(b, p, TRUE);
        return t >= 0 ? t : literal(b, p, FALSE);
      case TEXT_LIST:
        return textList(b, p);
      default:
        return b[p] == '{' ? any(b, p, 0) : -1;
    }
  }

  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};
  private static final byte[] INT32_MAX = "2147483647".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INT32_MIN = "2147483648".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INT64_MAX = "9223372036854775807".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INT64_MIN = "9223372036854775808".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] UINT64_MAX = "18446744073709551615"
      .getBytes(StandardCharsets.US_ASCII);

  /** The position after the literal at p (compared byte by byte: the sentinel stops it), or -1. */
  private static int literal(byte[] b, int p, byte[] word) {
    for (byte c : word) {
      if (b[p] != c) {
        return -1;
      }
      p++;
    }
    return p;
  }

  /**
   * A string's body after its opening quote; the position after its closing quote, or -1. Eight
   * bytes at a time: the first quote, backslash, control character (the sentinel among them) or
   * non-ASCII byte of each word is found by the usual zero-byte arithmetic, whose lowest flag is
   * exact (a borrow runs only upwards from a byte that is flagged itself).
   */
  private static int string(byte[] b, int p) {
    while (true) {
      long x = (long) LONG.get(b, p);
      long quote = x ^ 0x2222222222222222L;
      long backslash = x ^ 0x5C5C5C5C5C5C5C5CL;
      long stop = (((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)
          | ((x - 0x2020202020202020L) & ~x) | x) & HIGHS;
      if (stop == 0) {
        p += 8;
        continue;
      }
      p += Long.numberOfTrailingZeros(stop) >>> 3;
      byte c = b[p];
      if (c == '"') {
        return p + 1;
      }
      int n = c == '\\' ? escape(b, p + 1) : c < 0 ? utf8(b, p) : -1; // else a control character
      if (n < 0) {
        return -1;
      }
      p += n;
    }
  }

  /**
   * The length of the escape whose backslash is at p - 1 (with the backslash), or -1: the JSON
   * escapes, {@code \\u} with four hex digits naming neither NUL nor half of a surrogate pair
   * (the two readings might part ways there: left to the checked reading).
   */
  private static int escape(byte[] b, int p) {
    switch (b[p]) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
        return 2;
      case 'u':
        int v = 0;
        for (int i = 1; i <= 4; i++) {
          int h = Character.digit(b[p + i] & 0xFF, 16); // in 0..255 only ASCII digits count
          if (h < 0) {
            return -1;
          }
          v = v * 16 + h;
        }
        return v == 0 || (v >= 0xD800 && v <= 0xDFFF) ? -1 : 6;
      default:
        return -1;
    }
  }

  private static boolean continuation(byte c) {
    return c >= (byte) 0x80 && c <= (byte) 0xBF;
  }

  /**
   * The length of the well-formed UTF-8 sequence at p (its lead byte non-ASCII), or -1: no
   * overlong form, no surrogate, nothing past U+10FFFF (Unicode's table 3-7). Compared byte by
   * byte, so the sentinel stops it.
   */
  private static int utf8(byte[] b, int p) {
    int lead = b[p] & 0xFF;
    int second = b[p + 1] & 0xFF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      return continuation(b[p + 1]) ? 2 : -1;
    }
    boolean secondOk;
    int length;
    if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      secondOk = lead == 0xE0 ? second >= 0xA0 && second <= 0xBF
          : lead == 0xED ? second >= 0x80 && second <= 0x9F : continuation(b[p + 1]);
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      secondOk = lead == 0xF0 ? second >= 0x90 && second <= 0xBF
          : lead == 0xF4 ? second >= 0x80 && second <= 0x8F : continuation(b[p + 1]);
    } else {
      return -1;
    }
    if (!secondOk) {
      return -1;
    }
    for (int i = 2; i < length; i++) {
      if (!continuation(b[p + i])) {
        return -1;
      }
    }
    return length;
  }

  /**
   * The first byte at or after p that is not an ASCII digit (the sentinel stops it), eight bytes
   * at a time: below '0' by the borrow of a subtraction, above '9' by the carry of an addition,
   * non-ASCII by the high bit; the lowest flag is exact.
   */
  private static int skipDigits(byte[] b, int p) {
    while (true) {
      long x = (long) LONG.get(b, p);
      long other = (((x - 0x3030303030303030L) & ~x) | (x + 0x4646464646464646L) | x) & HIGHS;
      if (other != 0) {
        return p + (Long.numberOfTrailingZeros(other) >>> 3);
      }
      p += 8;
    }
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  /**
   * A JSON integer at p, within the range of its kind (the field's SQL type; for message sizes
   * the range DuckDB's reader parses exactly, -2^63 to 2^64 - 1); the position after it, or -1.
   */
  private static int integer(byte[] b, int p, byte kind) {
    boolean negative = b[p] == '-';
    int from = negative ? p + 1 : p;
    int q = from;
    if (b[q] == '0') {
      q++;
    } else if (b[q] >= '1' && b[q] <= '9') {
      q = skipDigits(b, q + 1);
    } else {
      return -1;
    }
    byte after = b[q];
    if (after == '.' || after == 'e' || after == 'E' || digit(after)) {
      return -1; // a fraction, an exponent, or a leading zero
    }
    int digits = q - from;
    byte[] max = switch (kind) {
      case INT -> negative ? INT32_MIN : INT32_MAX;
      case BIGINT -> negative ? INT64_MIN : INT64_MAX;
      default -> negative ? INT64_MIN : UINT64_MAX;
    };
    if (digits < max.length) {
      return q;
    }
    return digits == max.length && Arrays.compare(b, from, q, max, 0, max.length) <= 0 ? q : -1;
  }

  /**
   * A JSON number at p whose integer part has at most 20 digits and whose exponent at most two,
   * so that it is finite however DuckDB reads it; the position after it, or -1.
   */
  private static int number(byte[] b, int p) {
    if (b[p] == '-') {
      p++;
    }
    int from = p;
    if (b[p] == '0') {
      p++;
    } else if (b[p] >= '1' && b[p] <= '9') {
      p = skipDigits(b, p);
      if (p - from > 20) {
        return -1;
      }
    } else {
      return -1;
    }
    if (b[p] == '.') {
      p++;
      if (!digit(b[p])) {
        return -1;
      }
      int fraction = p;
      p = skipDigits(b, p);
      if (p - fraction > 40) {
        return -1;
      }
    }
    if (b[p] == 'e' || b[p] == 'E') {
      p++;
      if (b[p] == '+' || b[p] == '-') {
        p++;
      }
      int exp = p;
      p = skipDigits(b, p);
      if (p == exp || p - exp > 2) {
        return -1;
      }
    }
    return p;
  }

  private static int textList(byte[] b, int p) {
    return b[p] == '[' ? array(b, ws(b, p + 1), 0, true) : -1;
  }

  /** Any JSON value at p (objects and arrays nested up to {@link #MAX_DEPTH}), or -1. */
  private static int any(byte[] b, int p, int depth) {
    switch (b[p]) {
      case '"':
        return string(b, p + 1);
      case 't':
        return literal(b, p, TRUE);
      case 'f':
        return literal(b, p, FALSE);
      case 'n':
        return literal(b, p, NULL);
      case '{':
        return depth >= MAX_DEPTH ? -1 : anyObject(b, ws(b, p + 1), depth + 1);
      case '[':
        return depth >= MAX_DEPTH ? -1 : array(b, ws(b, p + 1), depth + 1, false);
      default:
        return number(b, p);
    }
  }

  private static int anyObject(byte[] b, int p, int depth) {
    if (b[p] == '}') {
      return p + 1;
    }
    while (true) {
      if (b[p] != '"') {
        return -1;
      }
      p = string(b, p + 1);
      if (p < 0) {
        return -1;
      }
      p = ws(b, p);
      if (b[p] != ':') {
        return -1;
      }
      p = any(b, ws(b, p + 1), depth);
      if (p < 0) {
        return -1;
      }
      p = ws(b, p);
      if (b[p] == ',') {
        p = ws(b, p + 1);
      } else {
        return b[p] == '}' ? p + 1 : -1;
      }
    }
  }

  /**
   * An array's elements after its opening bracket: strings only, or any JSON values; the
   * position after its closing bracket, or -1.
   */
  private static int array(byte[] b, int p, int depth, boolean stringsOnly) {
    if (b[p] == ']') {
      return p + 1;
    }
    while (true) {
      p = !stringsOnly ? any(b, p, depth) : b[p] == '"' ? string(b, p + 1) : -1;
      if (p < 0) {
        return -1;
      }
      p = ws(b, p);
      if (b[p] == ',') {
        p = ws(b, p + 1);
      } else {
        return b[p] == ']' ? p + 1 : -1;
      }
    }
  }
}
