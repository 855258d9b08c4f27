package io.ncclinspector;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * The host name and process id that name the output file ({@code <host>-pid<pid>.log}) and fill
 * the {@code metadata} of every record. A replay uses the identity of the recorded process.
 */
public record ProcessIdentity(String hostname, long pid) {

  public ProcessIdentity {
    Objects.requireNonNull(hostname, "hostname");
    if (hostname.isBlank() || hostname.contains("/")) {
      throw new IllegalArgumentException("not a usable host name: '" + hostname + "'");
    }
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
  }

  /** This JVM's host name (as gethostname reports it) and process id. */
  public static ProcessIdentity current() {
    return new ProcessIdentity(localHostName(), ProcessHandle.current().pid());
  }

  private static String localHostName() {
    String fromEnv = System.getenv("HOSTNAME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
