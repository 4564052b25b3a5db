import type { ResponseCaptureInput, ResponseCaptureOutput } from './ResponseCapture';

/** Shows a JSON response as its parsed, masked value. Invalid JSON shows nothing rather than failing. */
export class JsonCapture {
  capture({ body, config }: ResponseCaptureInput): ResponseCaptureOutput {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return { cards: null };
    }
    return { cards: config.masker.maskValue(parsed) };
  }
}
