/**
 * The security state files under __cluster/ (ACLs, SCRAM credentials), shared by the broker and the offline
 * user and acl commands: written atomically, never created where no data dir exists.
 */
package io.kaas.security;
