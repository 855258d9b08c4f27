package io.ncclinspector.opentelemetry;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP metrics receiver inside the test: takes {@code POST /v1/metrics} with a protobuf
 * {@code ExportMetricsServiceRequest} (gzip or not), decodes it with the OpenTelemetry protocol's own
 * classes, keeps it, and answers as a collector does.
 */
final class OtlpReceiver implements AutoCloseable {
  private final HttpServer server;
  private final List<ExportMetricsServiceRequest> requests = new CopyOnWriteArrayList<>();
  private final List<String> problems = new CopyOnWriteArrayList<>();

  OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/metrics", exchange -> {
      try (exchange) {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (!"POST".equals(exchange.getRequestMethod()) || !"application/x-protobuf".equals(type)) {
          problems.add(exchange.getRequestMethod() + " " + type);
          exchange.sendResponseHeaders(415, -1);
          return;
        }
        InputStream body = exchange.getRequestBody();
        if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
          body = new GZIPInputStream(body);
        }
        requests.add(ExportMetricsServiceRequest.parseFrom(body));
        byte[] response = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
        exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, response.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(response);
        }
      }
    });
    server.start();
  }

  /** The endpoint to export to. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/metrics";
  }

  List<ExportMetricsServiceRequest> requests() {
    return requests;
  }

  /** Requests that were not OTLP/HTTP protobuf exports. */
  List<String> problems() {
    return problems;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
