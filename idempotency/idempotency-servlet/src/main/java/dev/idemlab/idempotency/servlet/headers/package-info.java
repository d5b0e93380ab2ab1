/**
 * The idempotency headers' wire formats, apart from any server API: this package uses no Servlet
 * type, so a reactive filter formats and a client parses them with the same code the servlet filter
 * uses. Only the JDK and the core's configuration.
 */
package dev.idemlab.idempotency.servlet.headers;
