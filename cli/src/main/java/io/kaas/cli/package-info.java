/**
 * The kaas command line (picocli): one class per subcommand, exit codes from core-storage's ExitCodes, and
 * serve's launch of the broker. Offline commands run on a class path without the broker's jars (see bin/kaas
 * and cli/pom.xml).
 */
package io.kaas.cli;
