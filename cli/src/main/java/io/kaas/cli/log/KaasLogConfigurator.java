package io.kaas.cli.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * logback's configuration for kaas, found through {@code META-INF/services}: stderr, INFO, the
 * plain format offline commands always printed. In code rather than logback.xml, so a shell script's
 * {@code kaas verify} does not pay for an XML parser at start; {@code kaas serve} then re-applies
 * {@link LogSetup} with its {@code --log-format} and {@code --log-level}.
 */
public final class KaasLogConfigurator extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        LogSetup.apply(context, LogSetup.Format.PLAIN, Level.INFO);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
