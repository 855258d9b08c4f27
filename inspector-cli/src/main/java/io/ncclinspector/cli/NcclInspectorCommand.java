package io.ncclinspector.cli;

import io.ncclinspector.report.ReportCommand;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bin/nccl-inspector}: the command line of the project, one picocli command with the
 * subcommands {@code replay} ({@link ReplayCommand}) and {@code report} (inspector-report's
 * {@link ReportCommand}). Every command has {@code --help} and {@code --version}; an unknown
 * option, a missing value or a bad number is refused with the usage and exit status 2.
 */
@Command(name = "nccl-inspector", mixinStandardHelpOptions = true, versionProvider = Version.class,
    usageHelpWidth = 100,
    description = "NCCL Inspector for the JVM: replay recorded NCCL profiler traces, analyse Inspector logs.",
    subcommands = {CommandLine.HelpCommand.class},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:done", "1:the command failed or lost output (see its messages)", "2:invalid command line"})
public final class NcclInspectorCommand implements Runnable {
  @Spec CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs a command line; returns the exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return commandLine(out, err).execute(args);
  }

  static CommandLine commandLine(PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(new NcclInspectorCommand());
    cli.addSubcommand("replay", new ReplayCommand(out, err));
    cli.addSubcommand("report", ReportCommand.forStreams(out, err));
    return cli.setCaseInsensitiveEnumValuesAllowed(true)
        .setUnmatchedOptionsAllowedAsOptionParameters(false) /* --out --outt: a typo, not a path */
        .setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
        .setErr(new PrintWriter(err, true, StandardCharsets.UTF_8))
        .setExecutionExceptionHandler((e, cmd, parsed) -> {
          err.println(cmd.getCommandName().equals("nccl-inspector") ? "nccl-inspector: " + e.getMessage()
              : "nccl-inspector " + cmd.getCommandName() + ": " + e.getMessage());
          return 1;
        });
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "give a command: replay or report");
  }
}
