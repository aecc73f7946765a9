/**
 * The sandbox's own typed error. The sandbox may not import the desk's `DeskError`
 * (boundary: only `main/core/wire/**` and `main/core/money/**`), so admin and seeding
 * failures carry their code here. Same shape: `code` + message.
 */
export class SandboxError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'SandboxError'
  }
}

/** Any error carrying a string `code` (the wire profile's encode errors do). */
export function errorCode(e: unknown): string | null {
  if (e instanceof Error && typeof (e as { code?: unknown }).code === 'string') return (e as unknown as { code: string }).code
  return null
}
