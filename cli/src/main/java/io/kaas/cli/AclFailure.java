package io.kaas.cli;

import io.kaas.storage.io.StorageException;
import org.apache.kafka.common.errors.KafkaStorageException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * What an ACL change that {@code AclStore} refused means for the exit code: acls.json that cannot be read
 * or written (Kafka's {@link KafkaStorageException}) is a data error, exit 3 with its cause; anything else
 * is an ACL the request got wrong, a usage error (exit 2), as kafka-acls refuses it.
 */
final class AclFailure {
    private AclFailure() {}

    static RuntimeException of(CommandSpec spec, Throwable failure) {
        if (failure instanceof KafkaStorageException) {
            Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
            return new StorageException(StorageException.Kind.IO, failure.getMessage(), cause);
        }
        return new ParameterException(spec.commandLine(), failure.getMessage());
    }
}
