package io.kaas.storage.format;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.kaas.storage.io.AtomicFile;
import io.kaas.storage.io.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The one JSON codec for every state file: compact, fields in declared order, unset values omitted,
 * unknown fields ignored (a newer writer's extra keys must not make an older reader fail).
 */
public final class StateJson {
    /**
     * Built at first use: a read that {@link PlainRecordReader} answers never loads jackson-databind, which
     * an offline command that only reads (kaas verify in a shell loop) would otherwise set up at every start.
     */
    private static final class Databind {
        static final ObjectMapper MAPPER = JsonMapper.builder()
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    private StateJson() {}

    public static ObjectMapper mapper() {
        return Databind.MAPPER;
    }

    public static byte[] toBytes(Object value) {
        try {
            return Databind.MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + value, e);
        }
    }

    /** Databind's value of {@code json}, through {@link PlainRecordReader} where that gives the same. */
    public static <T> T fromBytes(byte[] json, Class<T> type) throws IOException {
        Optional<T> plain = PlainRecordReader.read(json, type);
        return plain.isPresent() ? plain.get() : Databind.MAPPER.readValue(json, type);
    }

    /** Reads {@code file}; empty when it does not exist. A file that exists but does not parse is an error naming it. */
    public static <T> Optional<T> read(Path file, Class<T> type) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, file + ": cannot read: " + io.kaas.storage.io.IoFailure.describe(e), e);
        }
        try {
            return Optional.of(fromBytes(bytes, type));
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO,
                    file + ": not a valid " + type.getSimpleName() + ": " + originalMessage(e),
                    e);
        }
    }

    /** Atomic, durable write (tmp + fsync + rename + directory fsync). */
    public static void write(Path file, Object value) {
        try {
            AtomicFile.write(file, toBytes(value));
        } catch (IOException e) {
            throw new StorageException(
                    StorageException.Kind.IO, file + ": cannot write: " + io.kaas.storage.io.IoFailure.describe(e), e);
        }
    }

    private static String originalMessage(IOException e) {
        return e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    }
}
