package io.ncclinspector.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.RecordFlag;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes records in the reference Inspector's JSON Lines format v4.0: one object per line with
 * {@code header}, {@code metadata} and {@code coll_perf} or {@code p2p_perf}, plus (verbose)
 * {@code event_trace_sn} / {@code event_trace_ts}. Every field of the reference keeps its name
 * and meaning; fields of ours are added after them, with the same prefix.
 *
 * <p>Differences from the reference, on purpose: {@code header.id} carries all 64 bits of the
 * communicator id; verbose channel lists hold the channels that really ran, by their NCCL channel
 * id; bandwidths are rounded to 6 decimals as the reference prints them.
 */
public final class JsonLinesWriter implements Closeable {
  public static final String FORMAT_VERSION = "v4.0";
  public static final String REC_MECHANISM = "nccl_profiler_interface";

  private static final JsonFactory FACTORY = new JsonFactory()
      .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

  private final JsonGenerator json;
  private final OutputStream out;
  private final ProcessIdentity identity;
  private final String gitRev;
  private final boolean verbose;

  public JsonLinesWriter(OutputStream out, ProcessIdentity identity, String gitRev, boolean verbose)
      throws IOException {
    this.out = out;
    this.json = FACTORY.createGenerator(out, JsonEncoding.UTF8);
    this.json.setRootValueSeparator(null); /* lines are separated by our newline only */
    this.identity = identity;
    this.gitRev = gitRev;
    this.verbose = verbose;
  }

  /** Writes one record as one line; {@code dumpMicros} is the wall-clock time of writing. */
  public void write(OperationRecord r, long dumpMicros) throws IOException {
    json.writeStartObject();
    writeHeader(r.communicator());
    writeMetadata(dumpMicros, r.communicator().profilerInterfaceVersion());
    if (r instanceof CollectiveRecord c) {
      writeCollective(c);
    } else if (r instanceof P2pRecord p) {
      writeP2p(p);
    }
    json.writeEndObject();
    json.writeRaw('\n');
  }

  public void flush() throws IOException {
    json.flush();
    out.flush();
  }

  @Override
  public void close() throws IOException {
    json.close();
    out.close();
  }

  private void writeHeader(CommunicatorInfo c) throws IOException {
    json.writeObjectFieldStart("header");
    json.writeStringField("id", c.idHex());
    json.writeStringField("comm_name", c.name());
    json.writeNumberField("rank", c.rank());
    json.writeNumberField("n_ranks", c.ranks());
    json.writeNumberField("nnodes", c.nodes());
    json.writeEndObject();
  }

  private void writeMetadata(long dumpMicros, int interfaceVersion) throws IOException {
    json.writeObjectFieldStart("metadata");
    json.writeStringField("inspector_output_format_version", FORMAT_VERSION);
    json.writeStringField("git_rev", gitRev);
    json.writeStringField("rec_mechanism", REC_MECHANISM);
    json.writeNumberField("dump_timestamp_us", dumpMicros);
    json.writeStringField("hostname", identity.hostname());
    json.writeNumberField("pid", identity.pid());
    json.writeNumberField("profiler_interface_version", interfaceVersion);
    json.writeEndObject();
  }

  private void writeCollective(CollectiveRecord c) throws IOException {
    json.writeObjectFieldStart("coll_perf");
    json.writeStringField("coll", c.operation());
    json.writeNumberField("coll_sn", c.sequence());
    json.writeNumberField("coll_msg_size_bytes", c.messageBytes());
    json.writeNumberField("coll_exec_time_us", c.executionMicros());
    json.writeStringField("coll_timing_source", c.timingSource().jsonName());
    json.writeNumberField("coll_algobw_gbs", round6(c.algorithmBandwidthGbs()));
    json.writeNumberField("coll_busbw_gbs", round6(c.busBandwidthGbs()));
    json.writeNumberField("coll_exec_time_ns", c.executionNanos());
    json.writeStringField("coll_algo", c.algorithm());
    json.writeStringField("coll_proto", c.protocol());
    json.writeStringField("coll_datatype", c.datatype());
    json.writeNumberField("coll_count", c.count());
    json.writeNumberField("coll_root", c.root());
    json.writeNumberField("coll_nchannels", c.announcedChannels());
    json.writeNumberField("coll_channels_seen", c.channelsSeen());
    json.writeNumberField("coll_nwarps", c.warps());
    writeGpuAndFlags("coll", c);
    if (verbose) {
      writeTrace("coll", c);
    }
    json.writeEndObject();
  }

  private void writeP2p(P2pRecord p) throws IOException {
    json.writeObjectFieldStart("p2p_perf");
    json.writeStringField("p2p", p.operation());
    json.writeNumberField("p2p_sn", p.sequence());
    json.writeNumberField("p2p_peer", p.peer());
    json.writeNumberField("p2p_msg_size_bytes", p.messageBytes());
    json.writeNumberField("p2p_exec_time_us", p.executionMicros());
    json.writeStringField("p2p_timing_source", p.timingSource().jsonName());
    json.writeNumberField("p2p_algobw_gbs", round6(p.algorithmBandwidthGbs()));
    json.writeNumberField("p2p_busbw_gbs", round6(p.busBandwidthGbs()));
    json.writeNumberField("p2p_exec_time_ns", p.executionNanos());
    json.writeStringField("p2p_datatype", p.datatype());
    json.writeNumberField("p2p_count", p.count());
    json.writeNumberField("p2p_nchannels", p.announcedChannels());
    json.writeNumberField("p2p_channels_seen", p.channelsSeen());
    writeGpuAndFlags("p2p", p);
    if (verbose) {
      writeTrace("p2p", p);
    }
    json.writeEndObject();
  }

  private void writeGpuAndFlags(String prefix, OperationRecord r) throws IOException {
    if (r.gpuStartNanos() != 0) {
      json.writeNumberField(prefix + "_gpu_start_ns", r.gpuStartNanos());
      json.writeNumberField(prefix + "_gpu_span_ns", r.gpuSpanNanos());
      json.writeNumberField(prefix + "_gpu_skew_ns", r.gpuSkewNanos());
    }
    if (r.quarantine() != io.ncclinspector.Quarantine.NONE) {
      json.writeStringField(prefix + "_quarantine_reason", r.quarantine().jsonName());
    }
    if (!r.flags().isEmpty()) {
      json.writeArrayFieldStart(prefix + "_flags");
      for (RecordFlag f : RecordFlag.values()) {
        if (r.flags().contains(f)) {
          json.writeString(f.jsonName());
        }
      }
      json.writeEndArray();
    }
  }

  private void writeTrace(String prefix, OperationRecord r) throws IOException {
    json.writeObjectFieldStart("event_trace_sn");
    json.writeNumberField(prefix + "_start_sn", r.startSequence());
    json.writeNumberField(prefix + "_stop_sn", r.stopSequence());
    json.writeArrayFieldStart("kernel_events");
    for (KernelChannelTrace ch : r.channelTraces()) {
      json.writeStartObject();
      json.writeNumberField("channel_id", ch.channelId());
      json.writeNumberField("kernel_start_sn", ch.startSequence());
      json.writeNumberField("kernel_stop_sn", ch.stopSequence());
      json.writeNumberField("kernel_record_sn", ch.recordSequence());
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();

    json.writeObjectFieldStart("event_trace_ts");
    json.writeNumberField(prefix + "_start_ts", r.startWallNanos() / 1000);
    json.writeNumberField(prefix + "_stop_ts", r.stopWallNanos() / 1000);
    json.writeArrayFieldStart("kernel_events");
    for (KernelChannelTrace ch : r.channelTraces()) {
      json.writeStartObject();
      json.writeNumberField("channel_id", ch.channelId());
      json.writeNumberField("kernel_start_ts", ch.startWallNanos() / 1000);
      json.writeNumberField("kernel_stop_ts", ch.stopWallNanos() / 1000);
      json.writeNumberField("kernel_record_ts", ch.recordWallNanos() / 1000);
      json.writeNumberField("kernel_gpu_start_ns", ch.gpuStartNanos());
      json.writeNumberField("kernel_gpu_stop_ns", ch.gpuStopNanos());
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();
  }

  /** Six decimals, as the reference prints bandwidths ({@code %lf}). */
  static double round6(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
