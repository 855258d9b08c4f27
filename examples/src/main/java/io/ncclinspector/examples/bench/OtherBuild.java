package io.ncclinspector.examples.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The inspector of another built checkout, enabled in this JVM beside this checkout's own, so that
 * a benchmark can time both builds' native cores pass by pass in one process: the only comparison
 * that a shared host's drift (the same build's figures moving by a fifth from one minute to the
 * next) leaves standing.
 *
 * <p>The other tree's {@code examples/target/lib} jars are copied under new names into a directory
 * of their own and loaded by a class loader whose parent is the platform loader, so that none of
 * its classes is this tree's: its {@code NcclInspector} has its own state, and JavaCPP extracts its
 * native library into a cache directory named after the renamed jar, apart from this tree's (the
 * two libraries have the same file name). NCCL's plugin variable, which this tree's inspector set
 * first, is overridden; the driver loads each core by its own path.
 */
final class OtherBuild implements AutoCloseable {
  private final Path jars;
  private final URLClassLoader loader;
  private final AutoCloseable inspector;
  private final String libraryPath;
  private boolean closed;

  private OtherBuild(Path jars, URLClassLoader loader, AutoCloseable inspector, String libraryPath) {
    this.jars = jars;
    this.loader = loader;
    this.inspector = inspector;
    this.libraryPath = libraryPath;
  }

  /**
   * Enables the inspector of the checkout at {@code tree} (built: its {@code examples/target/lib}
   * holds its reactor's jars), configured from the environment, writing into {@code dumpDirectory}.
   */
  static OtherBuild enable(Path tree, Path dumpDirectory) throws IOException {
    Path lib = tree.resolve("examples/target/lib");
    if (!Files.isDirectory(lib)) {
      throw new IllegalArgumentException(lib + " does not exist: build that tree first (mvn -pl examples -am package)");
    }
    Path jars = Files.createTempDirectory("nccl-inspector-other-build");
    URLClassLoader loader = null;
    AutoCloseable inspector = null;
    Thread current = Thread.currentThread();
    ClassLoader previous = current.getContextClassLoader();
    try {
      List<URL> urls = new ArrayList<>();
      try (Stream<Path> files = Files.list(lib)) {
        for (Path jar : files.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
          Path copy = jars.resolve("other-" + jar.getFileName());
          Files.copy(jar, copy);
          urls.add(copy.toUri().toURL());
        }
      }
      loader = new URLClassLoader("other-build", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
      current.setContextClassLoader(loader);
      Class<?> configClass = Class.forName("io.ncclinspector.InspectorConfig", true, loader);
      Object builder = configClass.getMethod("builder").invoke(null);
      builder = call(builder, "fromEnvironment");
      builder = builder.getClass().getMethod("dumpDirectory", Path.class).invoke(builder, dumpDirectory);
      builder = builder.getClass().getMethod("overridePlugin", boolean.class).invoke(builder, true);
      Object config = call(builder, "build");
      Class<?> inspectorClass = Class.forName("io.ncclinspector.NcclInspector", true, loader);
      inspector = (AutoCloseable) inspectorClass.getMethod("enable", configClass).invoke(null, config);
      Optional<?> path = (Optional<?>) call(call(inspector, "status"), "libraryPath");
      if (path.isEmpty()) {
        throw new IllegalStateException("its inspector names no native library");
      }
      return new OtherBuild(jars, loader, inspector, path.get().toString());
    } catch (Exception e) {
      /* Nothing of a failed start is left behind: its inspector, its class loader, its jars. */
      closeQuietly(inspector);
      closeQuietly(loader);
      deleteTree(jars);
      String why = e instanceof ReflectiveOperationException r ? cause(r) : e.toString();
      throw new IllegalStateException("could not enable the inspector of " + tree + ": " + why, e);
    } finally {
      current.setContextClassLoader(previous);
    }
  }

  /** The other build's native core, for the driver to open. */
  String libraryPath() {
    return libraryPath;
  }

  /** Records its dump thread wrote (read after close: everything drained). */
  long recordsWritten() {
    try {
      Object records = call(call(inspector, "status"), "records");
      return (Long) call(records, "written");
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not read the other build's status: " + cause(e), e);
    }
  }

  /** Closes its inspector and its class loader and deletes its jars; a second call does nothing. */
  @Override
  public void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    try {
      inspector.close();
    } finally {
      loader.close();
      deleteTree(jars);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      /* the start failed already: that failure is the one reported */
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      /* a temporary directory left behind */
    }
  }

  private static Object call(Object target, String method) throws ReflectiveOperationException {
    Method m = target.getClass().getMethod(method);
    m.setAccessible(true);
    return m.invoke(target);
  }

  private static String cause(ReflectiveOperationException e) {
    Throwable t = e instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
    return t.toString();
  }
}
