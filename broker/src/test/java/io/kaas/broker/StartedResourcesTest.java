package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartedResourcesTest {
    private final List<String> stopped = new ArrayList<>();
    private final StartedResources started = new StartedResources();

    @Test
    void aFailedStartStopsEverythingInReverseAndKeepsEveryFailureToStop() {
        started.add("first", () -> stopped.add("first"));
        started.add("second", () -> {
            stopped.add("second");
            throw new IOException("disk gone");
        });
        started.add("third", () -> {
            stopped.add("third");
            throw new IllegalStateException("stuck");
        });
        started.add("fourth", () -> stopped.add("fourth"));

        RuntimeException failure = started.stopAllAfter(new RuntimeException("bind failed"));

        assertThat(stopped).containsExactly("fourth", "third", "second", "first");
        assertThat(failure).hasMessage("bind failed");
        assertThat(failure.getSuppressed()).hasSize(2);
        assertThat(failure.getSuppressed()[0]).hasMessage("stuck");
        assertThat(failure.getSuppressed()[1])
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot stop second")
                .hasCauseInstanceOf(IOException.class);
        started.stopAll();
        assertThat(stopped).as("each is stopped once").hasSize(4);
    }

    @Test
    void aStopThrowsTheFirstFailureAfterStoppingTheRest() {
        started.add("engine", () -> stopped.add("engine"));
        started.add("timer", () -> {
            throw new IllegalStateException("timer");
        });
        started.add("listeners", () -> {
            throw new IllegalStateException("listeners");
        });

        assertThatThrownBy(started::stopAll)
                .hasMessage("listeners")
                .satisfies(e -> assertThat(e.getSuppressed())
                        .extracting(Throwable::getMessage)
                        .containsExactly("timer"));
        assertThat(stopped).containsExactly("engine");
    }

    @Test
    void anInterruptedStopGoesOnWithTheRestAndKeepsTheInterrupt() {
        started.add("engine", () -> stopped.add("engine"));
        started.add("handlers", () -> {
            throw new InterruptedException();
        });
        try {
            started.stopAll();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(stopped).containsExactly("engine");
    }
}
