/**
 * Everything the incident replay needs that the report does not say, as data: each assumption has an
 * id, an English and a French text, and the reason for the choice. Views and the CLI show the id next
 * to every modelled value. Texts name defaults; the code that uses a default names the id.
 */

export interface Assumption {
  id: `A${number}`;
  en: string;
  fr: string;
  reasonEn: string;
  reasonFr: string;
  /** FACTS.md "not in the report" items (N-ids in public/facts.json) this fills in. */
  fills: string[];
}

export const ASSUMPTIONS: readonly Assumption[] = [
  {
    id: 'A1',
    en: 'Traffic is a model: 40 tenants by default (adjustable), with skewed activity: tenant k sends in proportion to 1/√k.',
    fr: 'Le trafic est un modèle : 40 clients par défaut (réglable), à activité inégale : le client k envoie en proportion de 1/√k.',
    reasonEn: 'The report gives neither the number of customers nor their traffic. Some tenants send more than others; a steeper skew (1/k) makes the heaviest tenant\u2019s long prompts read mostly its own leftovers, which is not a cross-tenant leak (the replay shows it when asked: --tenant-skew 1).',
    reasonFr: 'Le rapport ne donne ni le nombre de clients ni leur trafic. Certains clients envoient plus que d\u2019autres ; une inégalité plus forte (1/k) fait lire aux longues demandes du plus gros client surtout ses propres restes, ce qui n\u2019est pas une fuite entre clients (visible avec --tenant-skew 1).',
    fills: ['N1', 'N8'],
  },
  {
    id: 'A2',
    en: 'Volume: 600 ordinary requests per day on average by default (adjustable), plus batch jobs (A13).',
    fr: 'Volume : 600 requêtes ordinaires par jour en moyenne par défaut (réglable), plus des traitements par lots (A13).',
    reasonEn: 'Not in the report. Chosen so the 14-day replay runs in about 3 seconds; warm decode pools come from the batch jobs (A13), not from this volume.',
    reasonFr: 'Absent du rapport. Choisi pour rejouer les 14 jours en environ 3 secondes ; ce sont les lots (A13), et non ce volume, qui remplissent la mémoire de génération.',
    fills: ['N1'],
  },
  {
    id: 'A3',
    en: 'Daily rhythm: arrival rate follows a sinusoid peaking at 15:00 UTC, the trough at one third of the peak.',
    fr: 'Rythme quotidien : le débit suit une sinusoïde culminant à 15 h UTC, le creux au tiers du pic.',
    reasonEn: 'No traffic data is public; business hours in Europe and the Americas overlap around 15:00 UTC.',
    reasonFr: 'Aucune donnée de trafic n\u2019est publique ; les heures de bureau d\u2019Europe et des Amériques se recouvrent vers 15 h UTC.',
    fills: ['N1'],
  },
  {
    id: 'A4',
    en: 'Ordinary prompt lengths: log-normal, median 3,000 tokens, σ = 1.7 (a long tail up to the prefill cache), capped at 681,280 tokens.',
    fr: 'Longueur des demandes ordinaires : log-normale, médiane 3 000 jetons, σ = 1,7 (longue traîne jusqu\u2019au cache de préparation), plafonnée à 681 280 jetons.',
    reasonEn: 'Not in the report. The cap keeps every prompt over the threshold among the explicitly placed ones (A5), so their number is an input the reader can see, and the count of affected responses is measured.',
    reasonFr: 'Absent du rapport. Le plafond garde toutes les demandes au-dessus du seuil parmi celles placées explicitement (A5) : leur nombre est une entrée visible, et le nombre de réponses touchées est mesuré.',
    fills: ['N1'],
  },
  {
    id: 'A5',
    en: 'Exactly 155 prompts longer than 681,280 tokens (and at most 1,048,576) arrive before the model went private, spread over the window with the daily rhythm, the first on 27 Aug; lengths log-uniform.',
    fr: 'Exactement 155 demandes de plus de 681 280 jetons (et au plus 1 048 576) arrivent avant que le modèle soit rendu privé, réparties sur la période selon le rythme quotidien, la première le 27 août ; longueurs log-uniformes.',
    reasonEn: 'The report counts 155 affected responses (F2) and says every affected request exceeded 681,280 tokens (F4); according to Cloudflare, every request over the threshold took the faulty path (F21). So the model sends that many such prompts: their number is an input. Whether each one leaks is then measured, not assumed.',
    reasonFr: 'Le rapport compte 155 réponses touchées (F2) et dit que toutes les demandes affectées dépassaient 681 280 jetons (F4) ; selon Cloudflare, chaque requête franchissant le seuil suivait le chemin défectueux (F21). Le modèle envoie donc autant de telles demandes : leur nombre est une donnée d\u2019entrée. Que chacune fuie ou non est ensuite mesuré, pas supposé.',
    fills: ['N3'],
  },
  {
    id: 'A6',
    en: 'The researcher\u2019s requests: 3 prompts over the threshold on 8 Sep between 08:00 and 08:30 UTC, from an account of their own; they count among the 155.',
    fr: 'Les requêtes du chercheur : 3 demandes au-delà du seuil le 8 septembre entre 8 h et 8 h 30 UTC, depuis un compte à lui ; elles comptent parmi les 155.',
    reasonEn: 'He reported on 8 Sep what he had seen (F7), so his long requests had run by then; the article gives neither their day nor their hour, and placing them on the morning of 8 Sep is our choice. According to Cloudflare every request over the threshold took the faulty path (F21), so the replay counts them among the affected responses; whether the report\u2019s 155 include them is not said (N6). In judging intent, Cloudflare set its own tests and the researcher\u2019s aside (F25); the article does not say whether they were set aside anywhere else.',
    reasonFr: 'Il a signalé le 8 septembre ce qu\u2019il avait vu (F7) : ses longues requêtes avaient donc déjà eu lieu ; l\u2019article n\u2019en donne ni le jour ni l\u2019heure, et les placer le matin du 8 septembre est notre choix. Selon Cloudflare, chaque requête franchissant le seuil suivait le chemin défectueux (F21) : la reconstitution les compte donc parmi les réponses touchées ; le rapport ne dit pas si ses 155 les incluent (N6). Pour juger de l\u2019intention, Cloudflare a écarté ses propres tests et ceux du chercheur (F25) ; l\u2019article ne dit pas s\u2019ils ont été écartés ailleurs.',
    fills: ['N5', 'N6'],
  },
  {
    id: 'A7',
    en: 'The two-account reproduction: on 9 Sep from 12:40 to 13:02 UTC (under 25 minutes), account verify-a sends ordinary prompts with its canary, then account verify-b sends 2 prompts over the threshold; those 2 count among the 155.',
    fr: 'La reproduction à deux comptes : le 9 septembre de 12 h 40 à 13 h 02 UTC (moins de 25 minutes), le compte verify-a envoie des demandes ordinaires avec son marqueur, puis le compte verify-b envoie 2 demandes au-delà du seuil ; ces 2 comptent parmi les 155.',
    reasonEn: 'Checks began on 9 Sep (F8) and the reproduction took under 25 minutes (F9). The article gives neither its day nor its time, nor whether it came before the 13:22 declaration (F10): placing it on 9 Sep, just before the declaration, is our choice. Counted among the 155 for the same reason as A6.',
    reasonFr: 'Les vérifications ont commencé le 9 septembre (F8) et la reproduction a pris moins de 25 minutes (F9). L\u2019article n\u2019en donne ni le jour ni l\u2019heure, ni ne dit si elle a précédé la déclaration de 13 h 22 (F10) : la placer le 9 septembre, juste avant la déclaration, est notre choix. Comptée parmi les 155 pour la même raison qu\u2019en A6.',
    fills: ['N4', 'N5', 'N6'],
  },
  {
    id: 'A8',
    en: 'From 14:00 to 19:40 on 9 Sep, new requests fail at the gateway with HTTP 403 and never reach SGLang; requests admitted before 14:00 finish.',
    fr: 'De 14 h à 19 h 40 le 9 septembre, les nouvelles demandes échouent à la passerelle avec HTTP 403 et n\u2019atteignent pas SGLang ; celles admises avant 14 h se terminent.',
    reasonEn: 'The report says only that new requests failed (F11). 403 is the generic answer for a resource the caller may no longer use; the real status is unknown.',
    reasonFr: 'Le rapport dit seulement que les nouvelles demandes échouaient (F11). 403 est la réponse générique pour une ressource que l\u2019appelant ne peut plus utiliser ; le vrai code est inconnu.',
    fills: ['N9'],
  },
  {
    id: 'A9',
    en: 'From 19:40 a fresh deployment serves: prefill cache 2,040,000 tokens (the report: about 2.04 million), the fixed reject path, a deployment capacity check, decode pools of 2,097,152 tokens, all pages zero at start-up.',
    fr: 'À partir de 19 h 40, un nouveau déploiement sert : cache de préparation de 2 040 000 jetons (le rapport : environ 2,04 millions), chemin de rejet corrigé, contrôle de capacité au déploiement, mémoires de génération de 2 097 152 jetons, toutes les pages à zéro au démarrage.',
    reasonEn: 'The report gives about 2.04 million tokens (F23) and the engine change (F24); resizing a KV cache needs a restart, whose time the report does not give. The decode pool size is a model value.',
    reasonFr: 'Le rapport donne environ 2,04 millions de jetons (F23) et la modification du moteur (F24) ; changer la taille d\u2019un cache KV demande un redémarrage, dont l\u2019heure n\u2019est pas donnée. La taille des mémoires de génération est une valeur du modèle.',
    fills: ['N2'],
  },
  {
    id: 'A10',
    en: 'Prompts over 681,280 tokens keep arriving after 14:00 at the same average rate: those in the private window fail (A8), those after 19:40 are served by the fixed deployment.',
    fr: 'Les demandes de plus de 681 280 jetons continuent d\u2019arriver après 14 h au même rythme moyen : celles de la fenêtre privée échouent (A8), celles après 19 h 40 sont servies par le déploiement corrigé.',
    reasonEn: 'After removing its own tests and the researcher\u2019s, Cloudflare judges the logged requests consistent with ordinary long-context use (F25), and nothing in the report says long prompts stopped; keeping them shows that the absence of leaks after 19:40 is due to the fix, not to an absence of long prompts.',
    reasonFr: 'Après retrait de ses propres tests et de ceux du chercheur, Cloudflare juge les demandes enregistrées compatibles avec un usage ordinaire de longs contextes (F25), et rien dans le rapport ne dit que les longues demandes ont cessé ; les garder montre que l\u2019absence de fuite après 19 h 40 vient du correctif, et non d\u2019une absence de longues demandes.',
    fills: ['N1'],
  },
  {
    id: 'A11',
    en: 'Cluster: 1 prefill node, 2 decode nodes of 1,310,720 tokens each, 64-token pages, round-robin routing; toy timing (prefill 25,000 tokens/s, decode 25 ms per token); 32 output tokens per response.',
    fr: 'Grappe : 1 nœud de préparation, 2 nœuds de génération de 1 310 720 jetons chacun, pages de 64 jetons, requêtes réparties à tour de rôle ; durées simplifiées (préparation 25 000 jetons/s, génération 25 ms par jeton) ; 32 jetons produits par réponse.',
    reasonEn: 'Node counts, GPU types and page size are not in the report (engine defaults, src/engine/config.ts). Decode must hold prompts of up to 1,048,576 tokens, the context GLM 5.3 accepted in theory (F14), since it reserved pages for whole requests (F19). Real answers are longer than 32 tokens; 32 is enough that a response usually runs past a record\u2019s canary marker (with 24, some leaked responses end just before one).',
    reasonFr: 'Le nombre de nœuds, les GPU et la taille des pages ne sont pas dans le rapport (valeurs par défaut du moteur). La génération doit pouvoir contenir des demandes de 1 048 576 jetons, ce que GLM 5.3 acceptait en théorie (F14), puisqu\u2019elle réservait des pages pour des demandes complètes (F19). Les vraies réponses sont plus longues que 32 jetons ; 32 suffit pour qu\u2019une réponse dépasse en général le marqueur d\u2019un enregistrement (avec 24, certaines réponses touchées s\u2019arrêtent juste avant).',
    fills: ['N2'],
  },
  {
    id: 'A12',
    en: 'Tenants\u2019 data is synthetic: short records on one topic per tenant, each followed by the tenant\u2019s canary marker. A canary in every tenant\u2019s documents is a modelling device that Cloudflare\u2019s method (markers of its own, used in its tests, F13, F22) suggested; the article says only that Cloudflare used markers of its own in its tests, not that it had any in its customers\u2019 data.',
    fr: 'Les données des clients sont synthétiques : de courts enregistrements sur un sujet par client, chacun suivi du marqueur témoin du client. Un marqueur dans les documents de chaque client est un artifice de modélisation inspiré de la méthode de Cloudflare (ses propres marqueurs, employés dans ses tests, F13, F22) ; l\u2019article dit seulement que Cloudflare a utilisé des marqueurs témoins dans ses tests, non qu\u2019il en avait dans les données de ses clients.',
    reasonEn: 'What leaked is not in the report (F6), so the records\u2019 topics (clinic visits, salaries, invoices…) say nothing about the real data. The canaries let the replay scan responses for a marker, beside its provenance audit; the count they give is the model\u2019s, not a detection that took place.',
    reasonFr: 'Ce qui a fui n\u2019est pas dans le rapport (F6) : les sujets des enregistrements (consultations, salaires, factures…) ne disent donc rien des vraies données. Les marqueurs permettent à la reconstitution de chercher un témoin dans les réponses, à côté de son audit de provenance ; le décompte qui en sort est celui du modèle, pas une détection qui a eu lieu.',
    fills: ['N7'],
  },
  {
    id: 'A13',
    en: 'Batch jobs: once a day (the first before 05:00 on 27 Aug), one tenant submits 32 documents of 40,000–80,000 tokens within a second.',
    fr: 'Traitements par lots : une fois par jour (le premier avant 5 h le 27 août), un client soumet 32 documents de 40 000 à 80 000 jetons en une seconde.',
    reasonEn: 'Not in the report. Decode reserves pages for a whole batch before prefill gets through it, so one batch writes most pages of both decode pools: the pools are warm (hold earlier requests\u2019 KV, not zeros) whenever a long prompt arrives, at a small share of the replay\u2019s cost.',
    reasonFr: 'Absent du rapport. La génération réserve les pages de tout le lot avant que la préparation l\u2019ait traité : un lot écrit la plupart des pages des deux nœuds de génération, qui contiennent donc des restes de requêtes (et non des zéros) à l\u2019arrivée de chaque longue demande, pour une faible part du coût.',
    fills: ['N1'],
  },
  {
    id: 'A14',
    en: 'Retiring aborted results without KV send (the switch of the upstream fix of that name): prefill still computes the one-token placeholder, then frees its pages at once, sends no page and reports Failed; decode, at that Failed poll, frees every page it reserved and answers 500.',
    fr: 'Retrait des résultats abandonnés sans envoi de KV (l\u2019interrupteur du correctif de SGLang de ce nom) : la préparation calcule encore le jeton provisoire, puis libère aussitôt ses pages, n\u2019envoie aucune page et annonce Failed ; la génération, à cette réponse Failed, libère toutes les pages qu\u2019elle avait réservées et répond 500.',
    reasonEn: 'SGLang\u2019s source, as the mechanics note reads it, says a Failed poll on decode aborts with 500 and releases the pages; the fix\u2019s title says results are retired, so the placeholder is computed first. Two things are our choices, as the note does not say them: that prefill frees its pages at once, and that the client gets decode\u2019s 500, not the 400 the request was marked with.',
    reasonFr: 'Le code de SGLang, tel que la note sur les mécanismes le lit, dit qu\u2019une réponse Failed interrompt la requête côté génération avec un 500 et libère les pages ; le titre du correctif parle de résultats retirés, le jeton provisoire est donc calculé d\u2019abord. Deux points sont nos choix, la note n\u2019en disant rien : la préparation libère ses pages aussitôt, et le client reçoit le 500 de la génération, non le 400 dont la requête était marquée.',
    fills: [],
  },
  {
    id: 'A15',
    en: 'The abort race (a page-reuse race that an SGLang pull request, closed, names: background B11; we have not checked how SGLang fences late writes): clients of the race\u2019s trace cancel just before their transfer; decode notices a done message at its next step (25 ms) and a decode-side abort reaches prefill 50 ms later. The incident\u2019s runs notice at once and never cancel.',
    fr: 'La course entre annulation et transfert (une course à la réutilisation des pages qu\u2019une PR de SGLang, fermée, nomme : source B11 ; nous n\u2019avons pas vérifié comment SGLang bloque les écritures tardives) : les clients de sa trace abandonnent juste avant leur transfert ; la génération remarque un message de fin à son pas suivant (25 ms) et un abandon côté génération parvient à la préparation 50 ms plus tard. Les exécutions de l\u2019incident le remarquent aussitôt et n\u2019abandonnent jamais.',
    reasonEn: 'Not in the report nor in the note, which names the race without timings. Any delay between decode freeing the pages and prefill hearing of it opens the race; these figures make it happen in a short trace, and the fence closes it whatever they are.',
    reasonFr: 'Ni dans le rapport ni dans la note, qui nomme la course sans en donner les délais. Tout délai entre la libération des pages par la génération et le moment où la préparation l\u2019apprend ouvre la course ; ces valeurs la font survenir dans une courte trace, et la barrière la ferme quelles qu\u2019elles soient.',
    fills: [],
  },
];

export function assumption(id: Assumption['id']): Assumption {
  const a = ASSUMPTIONS.find((x) => x.id === id);
  if (!a) throw new Error(`no assumption ${id}`);
  return a;
}
