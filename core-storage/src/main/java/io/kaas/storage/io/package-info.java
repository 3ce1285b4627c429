/**
 * Files, safely: atomic writes (tmp, fsync, rename, directory fsync), the file-handle budget that keeps
 * an idle partition free of descriptors ({@link io.kaas.storage.io.FileHandleCache}, counted
 * {@link io.kaas.storage.io.CachedFile} handles), state files several processes rewrite (an OS lock and
 * a change check), I/O failures in words, and {@link io.kaas.storage.io.StorageException}, whose kind
 * every caller maps. The bottom layer of core-storage: it uses no other package of it.
 */
package io.kaas.storage.io;
