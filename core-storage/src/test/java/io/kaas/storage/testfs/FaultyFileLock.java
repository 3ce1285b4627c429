package io.kaas.storage.testfs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;

/** A delegate lock reported against the wrapping channel, as {@link FileLock#channel()} requires. */
final class FaultyFileLock extends FileLock {
    private final FileLock delegate;

    FaultyFileLock(FileChannel channel, FileLock delegate) {
        super(channel, delegate.position(), delegate.size(), delegate.isShared());
        this.delegate = delegate;
    }

    @Override
    public boolean isValid() {
        return delegate.isValid();
    }

    @Override
    public void release() throws IOException {
        delegate.release();
    }
}
