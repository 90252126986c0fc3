import type { Page } from '@playwright/test';

/** What a page says now: its words, and which parts of the story's outcome it shows. */
export interface PageSays {
  /**
   * The body's text as a person reads it (less what `skip` matches, scripts, styles, and every option
   * of a closed list but its chosen one), then every aria-label and title outside `skip`, then the
   * document's title.
   */
  text: string;
  /**
   * Testids of the story's and the probe's parts that say what prefill computed, the status and whose
   * words were read: held while a question they answer waits.
   */
  told: string[];
}

/**
 * What `page` says, read in place, text node by text node: a copy of the whole page at every look
 * cost more than the page's own frames between two looks. `skip`: a selector for parts left out (a
 * question itself, whose options name every answer).
 */
export function pageSays(page: Page, skip: string): Promise<PageSays> {
  return page.evaluate((skip) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode(node) {
        if (node.nodeType === Node.TEXT_NODE) return NodeFilter.FILTER_ACCEPT;
        const el = node as Element;
        if (el.matches(`${skip}, script, style, template`)) return NodeFilter.FILTER_REJECT;
        if (el instanceof HTMLOptionElement) {
          const list = el.closest('select');
          if (list && el.index !== list.selectedIndex) return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_SKIP;
      },
    });
    const words: string[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) words.push((n as Text).data);
    const labels = [...document.querySelectorAll('[aria-label], [title]')]
      .filter((e) => !e.closest(skip))
      .map((e) => `${e.getAttribute('aria-label') ?? ''} ${e.getAttribute('title') ?? ''}`);
    const told = ['story-computed', 'story-status', 'story-leak', 'story-tokens'].filter((id) => document.querySelector(`[data-testid="${id}"]`));
    // The probe's outcome (what prefill computed for it, its status, whose KV it reads) likewise.
    if (document.querySelector('[data-testid="probe-outcome"]:is([data-outcome="leaking"], [data-outcome="served"], [data-outcome="refused"]):not([data-held])')) told.push('probe-outcome');
    return { text: `${words.join('')} ${labels.join(' ')} ${document.title}`, told };
  }, skip);
}
