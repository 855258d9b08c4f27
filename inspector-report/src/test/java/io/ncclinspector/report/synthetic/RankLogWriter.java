package io.ncclinspector.report.synthetic;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.MetadataField;
import io.ncclinspector.format.Origin;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordKind;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Writes the log file of one simulated process (one global rank): one JSON object per line, in
 * the field order of the chosen producer, with the names of the shared record format
 * ({@code io.ncclinspector.format}); the reference format writes only the fields of
 * {@link Origin#REFERENCE}. Used by one thread at a time.
 */
final class RankLogWriter implements AutoCloseable {
  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
      .build();
  /** 2^64: the reference computes uint8 sizes as a small negative number printed unsigned. */
  private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);
  private static final String JVM_GIT_REV = "nccl-inspector-jvm-0.1.0-SNAPSHOT";
  /** The perf fields' names of each kind, encoded once. */
  private static final Map<RecordKind, Map<PerfField, SerializableString>> PERF = new EnumMap<>(RecordKind.class);

  static {
    for (RecordKind k : RecordKind.values()) {
      Map<PerfField, SerializableString> names = new EnumMap<>(PerfField.class);
      for (PerfField f : PerfField.of(k)) {
        names.put(f, new SerializedString(f.jsonName(k)));
      }
      PERF.put(k, names);
    }
  }

  private final SyntheticConfig config;
  private final List<SimCommunicator> comms;
  private final int rank;
  private final String hostname;
  private final long pid;
  private final long clockOffset;
  private final Path file;
  private final CountingOutputStream counted;
  private final JsonGenerator json;
  private final int[] memberIndex; // per communicator: this rank's member index or -1
  private final String[] ids; // per communicator: header.id as the producer writes it
  private final char[] number = new char[32];
  private long records;

  RankLogWriter(SyntheticConfig config, List<SimCommunicator> comms, int rank) throws IOException {
    this.config = config;
    this.comms = comms;
    this.rank = rank;
    int node = rank / config.gpusPerNode();
    this.hostname = String.format(Locale.ROOT, "node%02d", node);
    this.pid = 10_000L + rank;
    this.clockOffset = config.clockOffsetNanos(node);
    this.file = config.outputDirectory().resolve(
        hostname + "-pid" + pid + (config.gzip() ? ".log.gz" : ".log"));
    OutputStream raw = Files.newOutputStream(file);
    this.counted = new CountingOutputStream(raw);
    OutputStream out = config.gzip() ? new FastGzip(counted) : new BufferedOutputStream(counted,
        1 << 16);
    this.json = JSON.createGenerator(out, JsonEncoding.UTF8);
    this.json.setRootValueSeparator(null);
    this.memberIndex = new int[comms.size()];
    this.ids = new String[comms.size()];
    for (int c = 0; c < comms.size(); c++) {
      memberIndex[c] = comms.get(c).memberOf(rank);
      String id = String.format(Locale.ROOT, "0x%016x", comms.get(c).id());
      // The reference prints the id into a buffer that keeps 14 hex digits.
      ids[c] = config.format() == LogFormat.REFERENCE ? id.substring(0, 16) : id;
    }
  }

  Path file() {
    return file;
  }

  long records() {
    return records;
  }

  /** Bytes written to the file so far (compressed size for gzip). */
  long bytes() {
    return counted.count;
  }

  /** Writes this rank's records of the given operations. */
  void write(List<SimOperation> ops) throws IOException {
    for (SimOperation op : ops) {
      int me = memberIndex[op.comm()];
      if (me < 0) {
        continue;
      }
      for (int i = 0; i < op.members().length; i++) {
        if (op.members()[i] == me) {
          writeRecord(op, i, me);
        }
      }
    }
  }

  /** Whether the chosen producer writes this field. */
  private boolean writes(RecordField f) {
    return config.format() == LogFormat.JVM || f.origin() == Origin.REFERENCE;
  }

  private void writeRecord(SimOperation op, int i, int me) throws IOException {
    SimCommunicator c = comms.get(op.comm());
    boolean reference = config.format() == LogFormat.REFERENCE;
    long exec = op.execNanos()[i];
    long startTrue = op.startNanos()[i];
    long dumpMicros = (startTrue + exec + 300_000 + clockOffset) / 1000;
    json.writeStartObject();

    json.writeObjectFieldStart(HeaderField.OBJECT);
    json.writeStringField(HeaderField.ID.jsonName(), ids[op.comm()]);
    json.writeStringField(HeaderField.COMM_NAME.jsonName(), reference ? "unknown" : c.name());
    json.writeNumberField(HeaderField.RANK.jsonName(), me);
    json.writeNumberField(HeaderField.N_RANKS.jsonName(), c.size());
    json.writeNumberField(HeaderField.NNODES.jsonName(), c.nodes());
    json.writeEndObject();

    json.writeObjectFieldStart(MetadataField.OBJECT);
    json.writeStringField(MetadataField.FORMAT_VERSION.jsonName(), MetadataField.FORMAT_VERSION_VALUE);
    json.writeStringField(MetadataField.GIT_REV.jsonName(), reference ? "unknown" : JVM_GIT_REV);
    json.writeStringField(MetadataField.REC_MECHANISM.jsonName(), MetadataField.REC_MECHANISM_VALUE);
    json.writeNumberField(MetadataField.DUMP_TIMESTAMP_US.jsonName(), dumpMicros);
    json.writeStringField(MetadataField.HOSTNAME.jsonName(), hostname);
    json.writeNumberField(MetadataField.PID.jsonName(), pid);
    if (writes(MetadataField.PROFILER_INTERFACE_VERSION)) {
      json.writeNumberField(MetadataField.PROFILER_INTERFACE_VERSION.jsonName(), 5);
    }
    json.writeEndObject();

    RecordKind kind = op.p2p() ? RecordKind.P2P : RecordKind.COLL;
    Map<PerfField, SerializableString> f = PERF.get(kind);
    boolean uint8 = op.elementBytes() == 1;
    long micros = exec / 1000;
    double factor = BusBandwidth.factor(op.name(), op.p2p() ? 2 : c.size());
    json.writeObjectFieldStart(kind.perfObject());
    json.writeFieldName(f.get(PerfField.OPERATION));
    json.writeString(op.name());
    json.writeFieldName(f.get(PerfField.SEQUENCE));
    json.writeNumber(op.sequence());
    if (op.p2p()) {
      json.writeFieldName(f.get(PerfField.PEER));
      json.writeNumber(op.peer());
    }
    json.writeFieldName(f.get(PerfField.MESSAGE_BYTES));
    double sizeForBandwidth = op.messageBytes();
    if (reference && uint8) {
      // What the reference prints for ncclUint8 (named "Unknown" by NCCL 2.28): the element
      // count times an element size of -1, printed unsigned (as in the recorded h2_dtypes run).
      BigInteger bogus = TWO_TO_64.subtract(BigInteger.valueOf(op.messageBytes()));
      json.writeNumber(bogus);
      sizeForBandwidth = bogus.doubleValue();
    } else {
      json.writeNumber(op.messageBytes());
    }
    json.writeFieldName(f.get(PerfField.EXEC_TIME_US));
    json.writeNumber(micros);
    json.writeFieldName(f.get(PerfField.TIMING_SOURCE));
    json.writeString("kernel_gpu");
    double algbw = micros > 0 ? sizeForBandwidth / micros / 1000.0 : 0;
    writeFixed6(f.get(PerfField.ALGORITHM_BANDWIDTH), algbw);
    writeFixed6(f.get(PerfField.BUS_BANDWIDTH), algbw * factor);
    if (writes(PerfField.EXEC_TIME_NS)) { /* this project's fields, in its writer's order */
      json.writeFieldName(f.get(PerfField.EXEC_TIME_NS));
      json.writeNumber(exec);
      if (!op.p2p()) {
        json.writeFieldName(f.get(PerfField.ALGORITHM));
        json.writeString(op.algorithm());
        json.writeFieldName(f.get(PerfField.PROTOCOL));
        json.writeString(op.protocol());
      }
      json.writeFieldName(f.get(PerfField.DATATYPE));
      json.writeString(uint8 ? "Unknown" : op.datatype());
      json.writeFieldName(f.get(PerfField.COUNT));
      json.writeNumber(op.messageBytes() / op.elementBytes());
      if (!op.p2p()) {
        json.writeFieldName(f.get(PerfField.ROOT));
        json.writeNumber(op.root());
      }
      json.writeFieldName(f.get(PerfField.NCHANNELS));
      json.writeNumber(op.channels());
      json.writeFieldName(f.get(PerfField.CHANNELS_SEEN));
      json.writeNumber(op.channels());
      if (!op.p2p()) {
        json.writeFieldName(f.get(PerfField.NWARPS));
        json.writeNumber(16);
      }
      json.writeFieldName(f.get(PerfField.GPU_START_NS));
      json.writeNumber(startTrue + clockOffset);
      json.writeFieldName(f.get(PerfField.GPU_SPAN_NS));
      json.writeNumber(exec);
      json.writeFieldName(f.get(PerfField.GPU_SKEW_NS));
      json.writeNumber(op.skewNanos()[i]);
      json.writeFieldName(f.get(PerfField.STEP));
      json.writeNumber(op.step());
      if (op.phase() != null) {
        json.writeFieldName(f.get(PerfField.PHASE));
        json.writeString(op.phase());
      }
      if (uint8) {
        json.writeFieldName(f.get(PerfField.FLAGS));
        json.writeStartArray();
        json.writeString("uint8_named_unknown");
        json.writeEndArray();
      }
    }
    json.writeEndObject();

    json.writeEndObject();
    json.writeRaw('\n');
    records++;
  }

  /**
   * Six decimals, as both producers print bandwidths ({@code %lf}); formatted by hand because
   * {@code String.format} would dominate the generator's run time.
   */
  private void writeFixed6(SerializableString field, double v) throws IOException {
    json.writeFieldName(field);
    if (!(Math.abs(v) < 9.0e12)) {
      json.writeNumber(String.format(Locale.ROOT, "%.6f", v));
      return;
    }
    long millionths = Math.round(Math.abs(v) * 1e6);
    int pos = number.length;
    for (int i = 0; i < 6; i++) {
      number[--pos] = (char) ('0' + millionths % 10);
      millionths /= 10;
    }
    number[--pos] = '.';
    do {
      number[--pos] = (char) ('0' + millionths % 10);
      millionths /= 10;
    } while (millionths > 0);
    if (v < 0) {
      number[--pos] = '-';
    }
    json.writeNumber(number, pos, number.length - pos);
  }

  @Override
  public void close() throws IOException {
    json.close();
  }

  /** Gzip at the fastest level: the generator is used to make large inputs quickly. */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws IOException {
      super(out, 1 << 16);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  private static final class CountingOutputStream extends java.io.FilterOutputStream {
    long count;

    CountingOutputStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }
  }
}
