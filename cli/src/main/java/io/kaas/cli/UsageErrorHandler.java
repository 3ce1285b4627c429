package io.kaas.cli;

import io.kaas.storage.ExitCodes;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A usage error prints what was wrong, a "did you mean" when picocli has one, and where to find help,
 * all on stderr, and exits 2. Not the whole usage text: in a script's log, the one line that names the
 * mistake should not drown in forty lines of help.
 */
final class UsageErrorHandler implements IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine commandLine = ex.getCommandLine();
        PrintWriter err = commandLine.getErr();
        err.println(DataErrorHandler.errorText(commandLine, DataErrorHandler.prefix(commandLine) + ex.getMessage()));
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + commandLine.getCommandSpec().qualifiedName(" ") + " --help' for more information.");
        err.flush();
        return ExitCodes.USAGE;
    }
}
