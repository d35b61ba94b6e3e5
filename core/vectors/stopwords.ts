/**
 * Words left out of text vectors: English function words, greetings and the framing of a request
 * ("I would like to", "can you please", "help me"). They say how something is asked, not what is
 * asked, and in a small corpus they are frequent enough to split one use case by wording. Kept
 * here, beside the featurizer, because the stream role (building) and the query role (embedding a
 * query) must drop exactly the same words.
 */
const LIST = `a about above after again against all also am an and any are aren't as at be because been before being
below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few
for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself
his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let let's me more most mustn't my myself no
nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should
shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd they'll
they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were weren't what
what's when when's where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
you're you've your yours yourself yourselves
hi hello hey dear thanks thank please ok okay yes yeah sure great good morning afternoon evening
want wanted wants like need needs needed help would could can may might must shall just really also get got
able try trying tried know think let`;

export const VECTOR_STOPWORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter(Boolean));
